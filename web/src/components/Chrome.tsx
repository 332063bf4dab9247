/** Header (model, session, permission mode, controls), footer (usage), the plan and the timeline. */
import type { JSX } from 'preact';
import type { Header as HeaderData, Item, PlanEntry, Totals } from '../model/types.ts';
import { Icon } from './icons.tsx';

const n = (value: number): string => value.toLocaleString('en-US');

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

export function Header({
  header,
  title,
  running,
  children,
}: {
  header: HeaderData;
  title: string;
  running: boolean;
  children?: JSX.Element | JSX.Element[];
}): JSX.Element {
  return (
    <header class="top">
      <div class="brand">
        <span class="logo">▍</span>agentpipe <span class="muted">view</span>
      </div>
      <div class="meta" data-testid="header">
        {title && (
          <span class="meta-item title" title={title}>
            {title}
          </span>
        )}
        <span class="meta-item" data-testid="model">
          <span class="label">model</span> {header.model || '—'}
        </span>
        <span class="meta-item mono" data-testid="session-id" title={header.sessionId}>
          <span class="label">session</span> {header.sessionId ? header.sessionId.slice(0, 8) : '—'}
        </span>
        <span class="meta-item" data-testid="permission-mode">
          <span class="label">mode</span> {header.permissionMode || '—'}
        </span>
        {running && (
          <span class="live-dot" data-testid="running">
            running
          </span>
        )}
      </div>
      <div class="controls">{children}</div>
    </header>
  );
}

export function Footer({ totals }: { totals: Totals }): JSX.Element {
  const cell = (label: string, value: string, id: string) => (
    <span class="stat">
      <span class="label">{label}</span> <span data-testid={id}>{value}</span>
    </span>
  );
  return (
    <footer class="bottom" data-testid="footer">
      {cell('input', n(totals.input), 'tokens-input')}
      {cell('output', n(totals.output), 'tokens-output')}
      {cell('cache read', n(totals.cacheRead), 'tokens-cache-read')}
      {cell('cache write', n(totals.cacheWrite), 'tokens-cache-write')}
      {cell('cost', `$${totals.cost.toFixed(4)}`, 'cost')}
      {cell('turns', n(totals.turns), 'turns')}
      {cell('duration', formatDuration(totals.durationMs), 'duration')}
    </footer>
  );
}

const PLAN_ICON: Record<PlanEntry['status'], string> = { completed: '✓', in_progress: '◐', pending: '○' };

export function PlanPanel({ plan }: { plan: PlanEntry[] }): JSX.Element {
  const done = plan.filter((e) => e.status === 'completed').length;
  return (
    <aside class="plan" data-testid="plan">
      <h2>
        Plan <span class="muted">{plan.length ? `${done}/${plan.length}` : ''}</span>
      </h2>
      {plan.length === 0 ? (
        <p class="muted small">No plan yet (TodoWrite).</p>
      ) : (
        <ul>
          {plan.map((entry, i) => (
            <li key={i} class={`plan-${entry.status}`} data-testid="plan-entry" data-status={entry.status}>
              <span class="plan-mark">{PLAN_ICON[entry.status]}</span>
              <span>{entry.content}</span>
              {entry.priority === 'high' && <span class="prio">high</span>}
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}

type Mark = 'turn' | 'tool' | 'failed' | 'notice' | 'text';
const RANK: Record<Mark, number> = { text: 0, tool: 1, turn: 2, notice: 3, failed: 4 };

function markOf(item: Item): Mark {
  if (item.kind === 'user') return 'turn';
  if (item.kind === 'tool') return item.status === 'failed' || item.denied ? 'failed' : 'tool';
  if (item.kind === 'notice') return item.level === 'error' || item.level === 'denial' ? 'failed' : 'notice';
  return 'text';
}

/** Turns and tool calls along the session; failures in red. Long sessions are bucketed. */
export function Timeline({
  items,
  selected,
  onPick,
}: {
  items: Item[];
  selected: number;
  onPick(index: number): void;
}): JSX.Element {
  const buckets = Math.min(items.length, 240);
  const marks: Array<{ mark: Mark; index: number; label: string }> = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * items.length) / buckets);
    const to = Math.max(from + 1, Math.floor(((b + 1) * items.length) / buckets));
    let best = from;
    for (let i = from; i < to; i++) if (RANK[markOf(items[i])] > RANK[markOf(items[best])]) best = i;
    const item = items[best];
    marks.push({
      mark: markOf(item),
      index: best,
      label:
        item.kind === 'tool'
          ? `${item.title} (${item.denied ? 'denied' : item.status})`
          : item.kind === 'user'
            ? `Turn ${item.turn}`
            : item.kind,
    });
  }
  const at = items.length ? (selected / items.length) * 100 : 0;
  return (
    <nav class="timeline" data-testid="timeline" aria-label="timeline">
      {marks.map((m) => (
        <button
          type="button"
          key={m.index}
          class={`tick tick-${m.mark}`}
          title={m.label}
          data-mark={m.mark}
          onClick={() => onPick(m.index)}
        />
      ))}
      {selected >= 0 && <span class="cursor" style={{ left: `${at}%` }} />}
    </nav>
  );
}

export function ThemeToggle({ theme, onToggle }: { theme: string; onToggle(): void }): JSX.Element {
  return (
    <button type="button" class="icon-btn" onClick={onToggle} title="Toggle theme" data-testid="theme-toggle">
      <Icon name={theme === 'dark' ? 'sun' : 'moon'} />
    </button>
  );
}
