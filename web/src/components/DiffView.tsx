/** An Edit/Write diff (the `diff` library's structured patch), unified or side by side. */
import type { JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import { structuredPatch } from 'diff';
import { highlight, languageOf } from './markdown.ts';

export type DiffMode = 'unified' | 'split';

interface Line {
  type: 'add' | 'del' | 'ctx';
  text: string;
  oldNo?: number;
  newNo?: number;
}
interface Row {
  left?: Line;
  right?: Line;
}

function hunksOf(oldText: string, newText: string): Line[][] {
  const patch = structuredPatch('a', 'b', oldText, newText, '', '', { context: 3 });
  return patch.hunks.map((hunk) => {
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    const lines: Line[] = [];
    for (const raw of hunk.lines) {
      const mark = raw[0];
      const text = raw.slice(1);
      if (mark === '\\') continue;
      if (mark === '+') lines.push({ type: 'add', text, newNo: newNo++ });
      else if (mark === '-') lines.push({ type: 'del', text, oldNo: oldNo++ });
      else lines.push({ type: 'ctx', text, oldNo: oldNo++, newNo: newNo++ });
    }
    return lines;
  });
}

/** Pairs each run of deletions with the additions that follow it. */
function rowsOf(lines: Line[]): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < lines.length;) {
    if (lines[i].type === 'ctx') {
      rows.push({ left: lines[i], right: lines[i] });
      i++;
      continue;
    }
    const dels: Line[] = [];
    const adds: Line[] = [];
    while (i < lines.length && lines[i].type === 'del') dels.push(lines[i++]);
    while (i < lines.length && lines[i].type === 'add') adds.push(lines[i++]);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) rows.push({ left: dels[k], right: adds[k] });
  }
  return rows;
}

function Code({ line, language }: { line?: Line; language?: string }): JSX.Element {
  return <code dangerouslySetInnerHTML={{ __html: line ? highlight(line.text, language) || ' ' : '' }} />;
}

export function DiffView({
  path,
  oldText,
  newText,
  mode,
}: {
  path: string;
  oldText: string | null;
  newText: string;
  mode: DiffMode;
}): JSX.Element {
  const hunks = useMemo(() => hunksOf(oldText ?? '', newText), [oldText, newText]);
  const language = languageOf(path);
  const added = hunks.flat().filter((l) => l.type === 'add').length;
  const removed = hunks.flat().filter((l) => l.type === 'del').length;
  return (
    <div class={`diff diff-${mode}`} data-testid="diff">
      <div class="diff-head">
        <span class="mono">{path}</span>
        <span class="diff-stat">
          <span class="add">+{added}</span> <span class="del">−{removed}</span>
          {oldText === null ? ' · new file' : ''}
        </span>
      </div>
      <table class="diff-table">
        {hunks.map((lines, h) => (
          <tbody key={h}>
            {h > 0 && (
              <tr class="diff-gap">
                <td colSpan={mode === 'split' ? 4 : 3}>⋯</td>
              </tr>
            )}
            {mode === 'unified'
              ? lines.map((line, i) => (
                  <tr key={i} class={`diff-line diff-${line.type}`}>
                    <td class="ln">{line.oldNo ?? ''}</td>
                    <td class="ln">{line.newNo ?? ''}</td>
                    <td class="src">
                      <span class="mark">{line.type === 'add' ? '+' : line.type === 'del' ? '-' : ' '}</span>
                      <Code line={line} language={language} />
                    </td>
                  </tr>
                ))
              : rowsOf(lines).map((row, i) => (
                  <tr key={i} class="diff-row">
                    <td class="ln">{row.left?.oldNo ?? ''}</td>
                    <td class={`src half diff-${row.left ? row.left.type : 'empty'}`}>
                      <Code line={row.left} language={language} />
                    </td>
                    <td class="ln">{row.right?.newNo ?? ''}</td>
                    <td class={`src half diff-${row.right ? row.right.type : 'empty'}`}>
                      <Code line={row.right} language={language} />
                    </td>
                  </tr>
                ))}
          </tbody>
        ))}
      </table>
    </div>
  );
}
