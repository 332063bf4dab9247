/**
 * What the docs tests run examples with: a shell whose PATH starts with an `agentpipe` that runs
 * the built CLI, a throwaway AGENTPIPE_HOME and no Anthropic key; and the fenced blocks of a page.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_PATH } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';

/** The environment additions of a docs example's shell. */
export function docsShellEnv(): Record<string, string> {
  const bin = scratchDir('docs-bin-');
  writeFileSync(path.join(bin, 'agentpipe'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_PATH}" "$@"\n`);
  chmodSync(path.join(bin, 'agentpipe'), 0o755);
  return {
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    AGENTPIPE_HOME: scratchDir('docs-home-'),
    ANTHROPIC_API_KEY: '',
  };
}

/** One fenced block of a Markdown page. */
export interface Fenced {
  info: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The HTML comments on the lines right above the fence (`<!-- x -->` → `x`). */
  marks: string[];
  /** The info string of the next fenced block when only blank lines separate them (its expected output). */
  next?: Fenced;
}

/** Every fenced block of a page, in order. */
export function fencedBlocks(page: string): Fenced[] {
  const lines = page.split('\n');
  const found: Fenced[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l === '```');
    if (end < 0) break;
    const marks: string[] = [];
    for (let j = i - 1; j >= 0; j--) {
      const comment = /^<!--\s*(.*?)\s*-->$/.exec(lines[j]!.trim());
      if (!comment) break;
      marks.unshift(comment[1]!);
    }
    const block: Fenced = { info: open[1]!, body: lines.slice(i + 1, end).join('\n'), line: i + 1, marks };
    const previous = found.at(-1);
    if (previous && lines.slice(previous.line + previous.body.split('\n').length + 1, i).every((l) => !l.trim()))
      previous.next = block;
    found.push(block);
    i = end;
  }
  return found;
}
