/**
 * The cluster's feeds (`view --redis`, `serve --redis --ui`): `/sessions` sends the list of the
 * cluster's sessions whenever it changes; `/watch?session=<id>` sends one session's log, then its
 * new messages and deltas as stream-json lines. Both are WebSockets to the server that served the
 * page, with the page's own query string (its token).
 */
import type { AgentMessage } from '../../src/messages/types.ts';
import type { ClusterSessionSummary } from '../../src/view/cluster-sessions.ts';
import type { ViewStore } from './model/store.ts';

/** A WebSocket to `path` of this page's server, with the page's query string (its token) and `params`. */
function feedSocket(path: string, params: Record<string, string> = {}): WebSocket {
  const query = new URLSearchParams(location.search);
  for (const [key, value] of Object.entries(params)) query.set(key, value);
  return new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}?${query}`);
}

/** The JSON objects of a frame's lines. */
function linesOf(data: unknown): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of String(data).split('\n')) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string')
        out.push(value as Record<string, unknown>);
    } catch {
      // not a message
    }
  }
  return out;
}

/** Follows the session list; returns a function that stops it. */
export function watchSessions(
  onList: (sessions: ClusterSessionSummary[], workers: number) => void,
  onState: (state: 'open' | 'closed') => void,
): () => void {
  const ws = feedSocket('/sessions');
  ws.onopen = () => onState('open');
  ws.onclose = () => onState('closed');
  ws.onmessage = (event) => {
    for (const message of linesOf(event.data)) {
      if (message.type === 'agentpipe_cluster_sessions' && Array.isArray(message.sessions))
        onList(message.sessions as ClusterSessionSummary[], typeof message.workers === 'number' ? message.workers : 0);
    }
  };
  return () => ws.close();
}

/** Streams one session's messages into `store`; returns a function that stops it. */
export function watchSession(id: string, store: ViewStore, onState: (state: 'open' | 'closed') => void): () => void {
  const ws = feedSocket('/watch', { session: id });
  ws.onopen = () => onState('open');
  ws.onclose = () => onState('closed');
  ws.onmessage = (event) => {
    for (const message of linesOf(event.data))
      if (message.type !== 'keep_alive') store.push(message as unknown as AgentMessage);
  };
  return () => ws.close();
}
