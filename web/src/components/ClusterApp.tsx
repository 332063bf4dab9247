/**
 * The cluster's page: its sessions on the left (the most recently active first, running ones
 * marked), the chosen one on the right as the viewer shows any stream, followed live. With
 * `canStart` (`serve --redis --ui`) a new session can be started from the page, on the workers.
 */
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ClusterSessionSummary } from '../../../src/view/cluster-sessions.ts';
import { watchSession, watchSessions } from '../cluster.ts';
import { ViewStore } from '../model/store.ts';
import { App } from './App.tsx';

const NEW = 'new';

/** The session named in the page's hash (`#session=<id>`), or `new`. */
function fromHash(): string | undefined {
  const value = new URLSearchParams(location.hash.slice(1)).get('session');
  return value || undefined;
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return new Date(ms).toLocaleString();
}

export function ClusterApp({ title, canStart }: { title: string; canStart: boolean }): JSX.Element {
  const [sessions, setSessions] = useState<ClusterSessionSummary[]>([]);
  const [workers, setWorkers] = useState(0);
  const [listState, setListState] = useState<'connecting' | 'open' | 'closed'>('connecting');
  const [chosen, setChosen] = useState<string | undefined>(fromHash);
  // One store per choice, made as the choice is rendered (the App below keeps the store it mounted with).
  const store = useMemo(() => (chosen ? new ViewStore() : undefined), [chosen]);
  const [feedState, setFeedState] = useState<'connecting' | 'open' | 'closed'>('connecting');

  useEffect(
    () =>
      watchSessions((list, count) => {
        setSessions(list);
        setWorkers(count);
      }, setListState),
    [],
  );
  useEffect(() => {
    history.replaceState(null, '', chosen ? `#session=${chosen}` : location.pathname + location.search);
    if (!chosen || chosen === NEW || !store) return;
    setFeedState('connecting');
    return watchSession(chosen, store, setFeedState);
  }, [chosen, store]);

  return (
    <div class="cluster">
      <aside class="sessions" data-testid="cluster-sessions">
        <div class="sessions-head">
          <div class="brand">
            <span class="logo">▍</span>agentpipe <span class="muted">cluster</span>
          </div>
          <div class="muted small" data-testid="cluster-status">
            {listState === 'open'
              ? `${sessions.length} session${sessions.length === 1 ? '' : 's'} · ${workers} ` +
                `worker${workers === 1 ? '' : 's'}`
              : listState}
          </div>
          <div class="muted small mono" title={title}>
            {title}
          </div>
          {canStart && (
            <button type="button" class="btn small primary" data-testid="cluster-new" onClick={() => setChosen(NEW)}>
              New session
            </button>
          )}
        </div>
        {sessions.length === 0 && listState === 'open' && <div class="empty small">No sessions in this Redis yet.</div>}
        {sessions.map((s) => (
          <button
            type="button"
            key={s.id}
            class={`session-row ${s.id === chosen ? 'chosen' : ''}`}
            data-testid="cluster-session"
            data-session-id={s.id}
            data-running={String(s.running)}
            onClick={() => setChosen(s.id)}
          >
            <span class="session-title">
              {s.running && <span class="live-dot" title="running" />}
              {s.title || <span class="muted">(no prompt yet)</span>}
            </span>
            <span class="muted small mono">
              {s.id.slice(0, 8)} · {s.messages} msg · {ago(s.lastAt)}
              {s.model ? ` · ${s.model}` : ''}
            </span>
          </button>
        ))}
      </aside>
      <section class="cluster-main">
        {store && chosen ? (
          <App
            key={chosen}
            data={
              chosen === NEW ? { mode: 'live', title: 'new session' } : { mode: 'file', title: chosen, messages: [] }
            }
            initial={store}
            watching={chosen !== NEW}
            status={chosen === NEW ? undefined : feedState}
          />
        ) : (
          <div class="empty" data-testid="cluster-pick">
            Pick a session to watch it live{canStart ? ', or start a new one' : ''}.
          </div>
        )}
      </section>
    </div>
  );
}
