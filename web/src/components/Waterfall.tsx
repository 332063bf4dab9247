/** Where a prompt's time went: model requests, tool calls, subagents as bars on one axis (model/waterfall.ts). */
import type { JSX } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { ViewStore } from '../model/store.ts';
import { waterfall, type Bar } from '../model/waterfall.ts';
import { formatDuration } from './Chrome.tsx';

interface Row {
  bar: Bar;
  depth: number;
}

/** The bars in order, each under its parent (a subagent's under its Task call). */
function rows(bar: Bar, depth = 0, into: Row[] = []): Row[] {
  into.push({ bar, depth });
  for (const child of bar.children) rows(child, depth + 1, into);
  return into;
}

export function Waterfall({ store }: { store: ViewStore }): JSX.Element {
  const count = store.timing.length;
  const [picked, setPicked] = useState(-1);
  const index = picked >= 0 && picked < count ? picked : count - 1;
  const records = store.timing[index];
  const root = useMemo(
    () => (records ? waterfall(records, `Prompt ${index + 1}`, `p${index + 1}`) : undefined),
    [records, records?.length, index, store.version],
  );
  if (!root)
    return (
      <section class="waterfall" data-testid="waterfall">
        <p class="muted small" data-testid="waterfall-empty">
          {count ? 'This prompt’s messages carry no timestamps.' : 'No prompt yet.'}
        </p>
      </section>
    );
  const span = Math.max(1, root.end - root.start);
  const pct = (ms: number) => `${((ms / span) * 100).toFixed(3)}%`;
  return (
    <section class="waterfall" data-testid="waterfall" aria-label="waterfall">
      <div class="waterfall-head">
        <select
          value={String(index)}
          data-testid="waterfall-prompt"
          onChange={(e) => setPicked(Number((e.target as HTMLSelectElement).value))}
        >
          {store.timing.map((_, i) => (
            <option key={i} value={String(i)}>
              Prompt {i + 1}
            </option>
          ))}
        </select>
        <span class="muted small">{formatDuration(root.end - root.start)}</span>
      </div>
      {rows(root).map(({ bar, depth }) => {
        const offset = bar.start - root.start;
        const duration = bar.end - bar.start;
        return (
          <div
            key={bar.key}
            class={`wf-row wf-${bar.kind}${bar.failed ? ' wf-failed' : ''}${bar.open ? ' wf-open' : ''}`}
            data-testid="waterfall-row"
            data-kind={bar.kind}
            data-label={bar.label}
            data-depth={depth}
            data-start-ms={offset}
            data-duration-ms={duration}
          >
            <span class="wf-label" style={{ paddingLeft: `${depth * 14}px` }} title={bar.label}>
              {bar.label}
            </span>
            <span class="wf-track">
              <span
                class="wf-bar"
                style={{ left: pct(offset), width: pct(duration) }}
                title={`${bar.label}: ${formatDuration(duration)} at +${formatDuration(offset)}`}
              />
            </span>
            <span class="wf-ms muted small">{formatDuration(duration)}</span>
          </div>
        );
      })}
    </section>
  );
}
