/**
 * What the viewer page of a cluster (`view --redis`, `serve --redis --ui`) reads, over WebSocket
 * connections of the server that served it (their Host, Origin and token are checked there):
 *
 * - `/sessions`: the cluster's sessions, sent as `{"type":"agentpipe_cluster_sessions", sessions,
 *   workers}` at once and again whenever the list changes (asked every `intervalMs`).
 * - `/watch?session=<id>`: one session, read-only: its log from the start, then its new messages
 *   and live deltas as they are appended, as stream-json lines (what a transcript holds, so the
 *   page shows it as it shows a saved stream: prompts included; no control lines).
 *
 * Nothing is ever written to Redis here.
 */
import { errorMessage } from '../process/errors.ts';
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import type { ClusterClient } from '../cluster/session-client.ts';
import type { LogMessage } from '../cluster/log/index.ts';
import { sleep } from '../process/retry.ts';
import { UUID_PATTERN } from '../messages/ids.ts';
import { socketWriter } from '../pipeline/socket-writer.ts';
import type { ClusterSessionSummary, ClusterSessionsMessage } from './cluster-sessions.ts';
import { isArray, isRecord, str } from '../process/guards.ts';

/** Types of log lines the page is not sent. */
const NOT_SHOWN = new Set([
  'control_request',
  'control_response',
  'control_cancel_request',
  'keep_alive',
  'transcript_mirror',
  'agentpipe_session_end',
  'agentpipe_tool_start',
  'agentpipe_snapshot',
]);

/** True for a log line the watching page shows (a prompt's echo is left out: its prompt line shows it). */
export function shown(message: LogMessage): boolean {
  if (NOT_SHOWN.has(message.type)) return false;
  return !(message.type === 'user' && 'isReplay' in message && message.isReplay === true);
}

const msOf = (id: string): number => Number(id.split('-')[0]);

/** The text of a prompt line's content. */
function promptText(message: LogMessage): string {
  const line: unknown = message;
  const content = isRecord(line) && isRecord(line.message) ? line.message.content : undefined;
  const text =
    typeof content === 'string'
      ? content
      : isArray(content)
        ? content.map((b) => (isRecord(b) && b.type === 'text' ? (str(b.text) ?? '') : '')).join(' ')
        : '';
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** The summary of one session, from the first entries of its log and its last one. */
async function summarize(client: ClusterClient, id: string): Promise<ClusterSessionSummary | undefined> {
  const [first, last, messages, running] = await Promise.all([
    client.firstEntries(id, 20),
    client.lastEntry(id),
    client.length(id),
    client.running(id),
  ]);
  if (!last || first.length === 0) return undefined;
  const initLine: unknown = first.find(
    (e) => e.message.type === 'system' && 'subtype' in e.message && e.message.subtype === 'init',
  )?.message;
  const init = isRecord(initLine) ? { model: str(initLine.model), cwd: str(initLine.cwd) } : undefined;
  const prompt = first.find((e) => e.message.type === 'user' && 'agentpipe_prompt' in e.message);
  return {
    id,
    running,
    title: prompt ? promptText(prompt.message) : '',
    ...(init?.model ? { model: init.model } : {}),
    ...(init?.cwd ? { cwd: init.cwd } : {}),
    messages,
    startedAt: msOf(first[0]!.id),
    lastAt: msOf(last.id),
  };
}

/** The cluster's sessions, the most recently active first (at most `limit`). */
export async function listSessions(client: ClusterClient, limit = 200): Promise<ClusterSessionsMessage> {
  const ids = await client.sessionIds(5000);
  const summaries = (await Promise.all(ids.map((id) => summarize(client, id)))).filter((s) => s !== undefined);
  summaries.sort((a, b) => b.lastAt - a.lastAt || a.id.localeCompare(b.id));
  return { type: 'agentpipe_cluster_sessions', sessions: summaries.slice(0, limit), workers: await client.workers() };
}

/** Options of the feed. */
export interface ClusterFeedOptions {
  client: ClusterClient;
  log: (line: string) => void;
  /** How often the session list is asked again (ms). Default 2000. */
  intervalMs?: number;
}

/** True for the connections the feed serves (the others are the front end's sessions, with `serve --redis --ui`). */
export function isFeedPath(req: IncomingMessage): boolean {
  const { pathname } = new URL(req.url ?? '/', 'http://localhost');
  return pathname === '/sessions' || pathname === '/watch';
}

/** Sends a line; resolves when the socket took it (a slow page pauses only its own feed). */
function sender(ws: WebSocket, closed: AbortSignal): (message: object) => Promise<void> {
  const write = socketWriter(ws, closed);
  return (message) => write(`${JSON.stringify(message)}\n`);
}

/** Serves one connection of the page (`/sessions` or `/watch`); resolves when it closed. */
export async function serveFeed(
  o: ClusterFeedOptions,
  ws: WebSocket,
  req: IncomingMessage,
  connection: number,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const closed = new AbortController();
  ws.on('close', () => closed.abort());
  ws.on('error', (error) => o.log(`agentpipe view: connection ${connection}: ${error.message}`));
  const send = sender(ws, closed.signal);
  try {
    if (url.pathname === '/sessions') await feedList(o, send, closed.signal);
    else await feedSession(o, url.searchParams.get('session') ?? '', ws, send, closed.signal);
  } catch (error) {
    if (!closed.signal.aborted) {
      o.log(`agentpipe view: connection ${connection}: ${errorMessage(error)}`);
      if (ws.readyState === ws.OPEN) ws.close(1011, errorMessage(error).slice(0, 120));
    }
  }
}

async function feedList(o: ClusterFeedOptions, send: (m: object) => Promise<void>, signal: AbortSignal): Promise<void> {
  let previous = '';
  while (!signal.aborted) {
    const list = await listSessions(o.client);
    const text = JSON.stringify(list);
    if (text !== previous) await send(list);
    previous = text;
    await sleep(o.intervalMs ?? 2000, { signal, onAbort: 'resolve' });
  }
}

async function feedSession(
  o: ClusterFeedOptions,
  id: string,
  ws: WebSocket,
  send: (m: object) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  if (!UUID_PATTERN.test(id) || !(await o.client.sessions.exists(id))) {
    ws.close(1008, `no session ${id.slice(0, 60)} in Redis`);
    return;
  }
  // The deltas of the message being written now: those after the last durable message.
  const last = await o.client.sessions.lastId(id);
  const live = await o.client.sessions.readLive(id);
  const at = live.findIndex((e) => e.after === last);
  const liveFrom = at > 0 ? live[at - 1]!.id : at === 0 ? '0-0' : await o.client.sessions.lastLiveId(id);
  // Archived or deleted meanwhile: nothing more will come; the page is told so.
  const gone = new AbortController();
  const both = AbortSignal.any([signal, gone.signal]);
  const watch = setInterval(() => {
    o.client.sessions.exists(id).then(
      (there) => !there && gone.abort(),
      () => undefined,
    );
  }, o.intervalMs ?? 2000);
  try {
    for await (const { entry } of o.client.sessions.follow(id, '0-0', both, { fromId: liveFrom }))
      if (shown(entry.message)) await send(entry.message);
  } finally {
    clearInterval(watch);
  }
  if (gone.signal.aborted && ws.readyState === ws.OPEN) ws.close(1000, 'the session was archived or deleted');
}
