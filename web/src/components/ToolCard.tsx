/**
 * A tool call: kind icon, title, status (running time), locations, diff / terminal / images / output, input, subagent
 * tree.
 */
import type { JSX } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import type { ToolItem } from '../model/types.ts';
import { DiffView } from './DiffView.tsx';
import { Icon, KIND_LABEL } from './icons.tsx';
import { ItemList } from './ItemView.tsx';
import { Settings } from './settings.ts';

const MAX_OUTPUT = 20_000;

function clip(text: string): string {
  return text.length > MAX_OUTPUT
    ? `${text.slice(0, MAX_OUTPUT)}\n… (${(text.length - MAX_OUTPUT).toLocaleString('en-US')} more characters)`
    : text;
}

function Elapsed({ card }: { card: ToolItem }): JSX.Element | null {
  const [, tick] = useState(0);
  useEffect(() => {
    if (card.status !== 'running' || !card.startedAt) return;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [card.status, card.startedAt]);
  if (card.status !== 'running') return card.elapsed ? <span class="elapsed">{card.elapsed.toFixed(0)}s</span> : null;
  const live = card.startedAt ? (Date.now() - card.startedAt) / 1000 : 0;
  const seconds = Math.max(card.elapsed ?? 0, live);
  return <span class="elapsed">{seconds.toFixed(0)}s</span>;
}

function statusLabel(card: ToolItem): string {
  if (card.denied) return 'denied';
  return card.status === 'running' ? 'running' : card.status;
}

function Terminal({ card, text }: { card: ToolItem; text: string }): JSX.Element {
  const input = (card.rawInput ?? {}) as { command?: string };
  const out = (card.rawOutput ?? {}) as { stdout?: string; stderr?: string; exitCode?: number | null };
  const structured = typeof out === 'object' && (typeof out.stdout === 'string' || typeof out.stderr === 'string');
  // Claude Code's Bash result has no exit code field: a failure starts "Exit code N", a success is 0.
  const failedWith = /^Exit code (\d+)/.exec(text)?.[1];
  const exit =
    typeof out.exitCode === 'number'
      ? out.exitCode
      : failedWith !== undefined
        ? Number(failedWith)
        : card.status === 'completed'
          ? 0
          : undefined;
  return (
    <div class="terminal" data-testid="terminal">
      {input.command && (
        <div class="term-cmd">
          <span class="prompt">$</span> {input.command}
        </div>
      )}
      {structured ? (
        <>
          {out.stdout && <pre class="term-out">{clip(out.stdout)}</pre>}
          {out.stderr && <pre class="term-err">{clip(out.stderr)}</pre>}
        </>
      ) : (
        text && <pre class="term-out">{clip(text)}</pre>
      )}
      {(exit !== undefined || (card.status === 'failed' && !card.denied)) && (
        <div class={`exit ${exit === 0 ? 'ok' : 'bad'}`} data-testid="exit-code">
          exit {exit ?? '≠ 0'}
        </div>
      )}
    </div>
  );
}

export function ToolCard({ card }: { card: ToolItem }): JSX.Element {
  const { diffMode } = useContext(Settings);
  const [open, setOpen] = useState(true);
  const diffs = card.content.filter((c) => c.type === 'diff');
  const images = card.content.flatMap((c) => (c.type === 'content' && c.content.type === 'image' ? [c.content] : []));
  const text = card.content
    .map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : ''))
    .join('');
  const execute = card.toolKind === 'execute';
  const status = statusLabel(card);
  const isTask = card.toolKind === 'think';
  return (
    <div
      class={`card tool status-${status} kind-${card.toolKind}`}
      data-testid="tool-card"
      data-tool-id={card.id}
      data-status={status}
      data-kind={card.toolKind}
    >
      <button type="button" class="card-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <Icon name="chevron" class={`chev ${open ? 'open' : ''}`} size={14} />
        <span class="kind-icon" title={card.toolKind}>
          <Icon name={card.toolKind} />
        </span>
        <span class="tool-title">{card.title}</span>
        <span class="kind-label">{card.name || KIND_LABEL[card.toolKind]}</span>
        <span class="spacer" />
        <Elapsed card={card} />
        <span class={`badge badge-${status}`} data-testid="tool-status">
          {status}
        </span>
      </button>
      {open && (
        <div class="card-body">
          {card.locations.length > 0 && (
            <div class="locations">
              {card.locations.map((loc) => (
                <a
                  class="loc mono"
                  href={`file://${loc.path}`}
                  key={`${loc.path}:${loc.line ?? ''}`}
                  data-testid="location"
                >
                  {loc.path}
                  {loc.line ? `:${loc.line}` : ''}
                </a>
              ))}
            </div>
          )}
          {diffs.map(
            (d, i) =>
              d.type === 'diff' && (
                <DiffView key={i} path={d.path} oldText={d.oldText} newText={d.newText} mode={diffMode} />
              ),
          )}
          {execute && <Terminal card={card} text={text} />}
          {images.map(
            (img, i) =>
              img.type === 'image' && (
                <img
                  key={i}
                  class="tool-image"
                  data-testid="tool-image"
                  alt="tool output"
                  src={`data:${img.mimeType};base64,${img.data}`}
                />
              ),
          )}
          {!execute && text && !isTask && (
            <pre class={`output ${card.status === 'failed' ? 'failed' : ''}`}>{clip(text)}</pre>
          )}
          {card.children.length > 0 && (
            <details class="subagent" open data-testid="subagent">
              <summary>
                <Icon name="bot" size={14} /> Subagent {card.agentName ?? ''} · {card.children.length} step
                {card.children.length === 1 ? '' : 's'}
              </summary>
              <ItemList items={card.children} />
            </details>
          )}
          {isTask && text && (
            <div class="subagent-result">
              <div class="label">Result</div>
              <pre class="output">{clip(text)}</pre>
            </div>
          )}
          <details class="input">
            <summary>Input</summary>
            <pre class="mono">{JSON.stringify(card.rawInput, null, 2)}</pre>
          </details>
        </div>
      )}
    </div>
  );
}
