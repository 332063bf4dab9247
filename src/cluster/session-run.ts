/**
 * One session run by a worker, on the session's log: the lease (renewed; lost means stop), the
 * input from the inbox, every output line appended to the log (fenced), and the takeover of a
 * session another worker was running when it died.
 *
 * Takeover, in order: wait for the old lease to expire and take it; a prompt whose turn has no
 * `result` in the log gets the interruption notice and one error result (as a live interrupt
 * writes them); the log is written to a temp JSONL transcript and the session resumes from it
 * (tool calls answered in the log are not run again); user messages the old owner had taken from
 * the inbox but never started are run, the state-setting control requests it had handled
 * (`initialize`, `set_model`...) are handled again with their answers kept out of the log; then
 * the inbox is read after the cursor, the last id the old owner handled. A run that ends (input
 * ended, idle) forgets its client's `initialize`: a later run registers only its own client's
 * hooks, while a takeover (the client is still there) handles the dead owner's again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ParsedLine } from '../messages/parse.ts';
import { parseInputLine } from '../messages/parse.ts';
import type { AgentMessage, ResultMessage } from '../messages/types.ts';
import { INTERRUPTED, INTERRUPTED_TOOLS } from '../messages/notices.ts';
import { newUuid } from '../messages/ids.ts';
import { userMessage } from '../messages/user.ts';
import { runStreamSession } from '../session/serve-session.ts';
import { setupErrorResult } from '../session/open.ts';
import { readTranscript } from '../session/transcript-format.ts';
import {
  compareStreamIds,
  FencedError,
  transcriptLine,
  type LogEntry,
  type LogMessage,
  type SessionEndMarker,
  type SessionLog,
} from './log/index.ts';
import { pause, RedisConnectionError, reconnectDelay } from './connection.ts';
import type { SessionJob } from './jobs.ts';
import { Appender } from './appender.ts';

/** The message of the error result a prompt cut off by a dead worker gets. */
export const WORKER_STOPPED = 'the worker running this prompt stopped; the session was resumed on another worker';

/** Control requests that set session state: handled again by a new owner, their answers kept out of the log. */
const STATE_REQUESTS = new Set([
  'initialize',
  'set_permission_mode',
  'set_model',
  'set_max_thinking_tokens',
  'mcp_set_servers',
  'mcp_toggle',
]);

/** What a run needs. */
export interface SessionRunOptions {
  log: SessionLog;
  job: SessionJob;
  /** Unique per acquisition: worker id + job id + a random part. */
  token: string;
  leaseMs: number;
  /** The session's run ends after this long without input or output. */
  idleMs: number;
  /** Aborting stops the run (the worker is closing): the running prompt is interrupted, the lease released. */
  signal: AbortSignal;
  /**
   * Aborting ends the run gently (the worker is draining): no new prompt is taken from the inbox,
   * the running and queued ones finish, then the run ends as `stopped` and the lease is released.
   */
  drain?: AbortSignal;
  /** Where archived sessions are (`<dir>/<session id>.jsonl`): a session with no log is restored from there. */
  archiveDir?: string;
  print: (line: string) => void;
  /** Called once the session is open and its inbox is being read (a warm session is then ready for a client). */
  onReady?: () => void;
  /** A warm session's run: called once it is claimed (at its start when it is claimed already). */
  onClaimed?: () => void;
}

/**
 * How a run ended: `ended` (input ended or idle), `fenced` (another worker owns it now), `stopped` (the worker is
 * closing), `unclaimed` (a warm session no client took: it had no history, took no input and appended nothing).
 */
export type RunOutcome = 'ended' | 'fenced' | 'stopped' | 'unclaimed';

/**
 * The field a state-setting control request is kept under for a new owner (one per kind; per server for `mcp_toggle`).
 */
export function stateField(request: { subtype: string; serverName?: unknown }): string {
  return request.subtype === 'mcp_toggle' ? `mcp_toggle:${String(request.serverName)}` : request.subtype;
}

/** Where a session's archive is. */
export const archiveFile = (dir: string, sessionId: string): string => path.join(dir, `${sessionId}.jsonl`);

/**
 * Puts an archived session's transcript back into its (empty) log, fenced like any append, so
 * clients reconnect from a message uuid and the run resumes from it. Returns the entries, or none
 * when there is no archive.
 */
async function restoreArchive(o: SessionRunOptions, archived: Promise<boolean>): Promise<LogEntry[]> {
  const { log, job, token } = o;
  if (!o.archiveDir || !(await archived)) return [];
  const file = archiveFile(o.archiveDir, job.sessionId);
  const lines = (await readTranscript(file, o.print)) as unknown as LogMessage[];
  if (lines.length === 0) return [];
  const ids = await log.append(job.sessionId, token, lines);
  o.print(`agentpipe worker: session ${job.sessionId}: restored ${lines.length} lines from ${file}`);
  return lines.map((message, i) => ({ id: ids[i]!, message, json: JSON.stringify(message) }));
}

/** A stable uuid for a user message that came without one (so a new owner recognises it). */
export function inputUuid(sessionId: string, inputId: string): string {
  const h = createHash('sha1').update(`${sessionId}/${inputId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** True for the lines a transcript holds that the wire never carries (prompts, hook context, snapshots, titles). */
export function isTranscriptOnly(line: Record<string, unknown>): boolean {
  if (line.type === 'agentpipe_snapshot' || line.type === 'custom-title') return true;
  return line.type === 'user' && (line.agentpipe_prompt === true || line.agentpipe_context === true);
}

/** True for log entries a client must not be sent (transcript-only lines, the worker's markers). */
export function isInternal(message: LogMessage | { type: string }): boolean {
  return message.type === 'agentpipe_session_end' || isTranscriptOnly(message as unknown as Record<string, unknown>);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isMain = (m: Record<string, unknown>): boolean =>
  m.parent_tool_use_id === null || m.parent_tool_use_id === undefined;

/** Blocks of a message's content, or none. */
function blocks(m: Record<string, unknown>): Array<Record<string, unknown>> {
  const content = isObject(m.message) ? m.message.content : undefined;
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** The prompt whose turn has no result yet (cut off), and whether tool calls of it are unanswered. */
export function openTurn(entries: readonly LogEntry[]): { promptUuid: string; unanswered: boolean } | undefined {
  let open: { promptUuid: string; uses: Set<string>; answered: Set<string> } | undefined;
  for (const { message } of entries) {
    const m = message as unknown as Record<string, unknown>;
    if (m.type === 'user' && m.agentpipe_prompt === true && typeof m.uuid === 'string') {
      open = { promptUuid: m.uuid, uses: new Set(), answered: new Set() };
    } else if (m.type === 'result') {
      open = undefined;
    } else if (open && isMain(m) && m.type === 'assistant') {
      for (const b of blocks(m)) if (b.type === 'tool_use' && typeof b.id === 'string') open.uses.add(b.id);
    } else if (open && isMain(m) && m.type === 'user') {
      for (const b of blocks(m))
        if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') open.answered.add(b.tool_use_id);
    }
  }
  if (!open) return undefined;
  const answered = open.answered;
  return { promptUuid: open.promptUuid, unanswered: [...open.uses].some((id) => !answered.has(id)) };
}

/**
 * The requests a run sends the client get its run's tag (`<id>@<tag>`), so an answer that comes
 * late for a request of an earlier owner (cancelled at the takeover) never answers a request of
 * the new owner that happens to have the same id.
 */
const TAGGED_REQUEST = /^(.+)@([0-9a-f]{8})$/;

/**
 * Requests the dead owner asked the client in the cut turn (`can_use_tool`, `hook_callback`): no answer can reach it
 * now.
 */
const CLIENT_REQUESTS = new Set(['can_use_tool', 'hook_callback']);

/**
 * The ids of the client requests of the cut turn (the entries after its prompt) still open: those
 * whose tool call has no result in the log. A new owner cancels them (`control_cancel_request`, as
 * Claude Code does when it gives a request up); a re-attempted tool call asks again.
 */
export function openRequests(entries: readonly LogEntry[], promptUuid: string): string[] {
  const start = entries.findIndex((e) => (e.message as { uuid?: unknown }).uuid === promptUuid);
  const turn = entries.slice(start + 1).map((e) => e.message as unknown as Record<string, unknown>);
  const answered = new Set(
    turn.flatMap((m) =>
      (m.type === 'user' ? blocks(m) : []).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])),
    ),
  );
  return turn.flatMap((m) => {
    const request = isObject(m.request) ? m.request : undefined;
    if (m.type !== 'control_request' || !request || typeof m.request_id !== 'string') return [];
    if (!CLIENT_REQUESTS.has(String(request.subtype))) return [];
    const toolUse = request.tool_use_id ?? (isObject(request.input) ? request.input.tool_use_id : undefined);
    return typeof toolUse === 'string' && answered.has(toolUse) ? [] : [m.request_id];
  });
}

/** The notice and error result that close a turn cut off by a dead worker. */
export function closingMessages(sessionId: string, unanswered: boolean): [AgentMessage, ResultMessage] {
  const notice = userMessage([{ type: 'text', text: unanswered ? INTERRUPTED_TOOLS : INTERRUPTED }], sessionId, null);
  const result: ResultMessage = {
    ...setupErrorResult(WORKER_STOPPED, sessionId),
    terminal_reason: unanswered ? 'aborted_tools' : 'aborted_streaming',
  };
  return [notice, result];
}

/** Takes the lease (waiting for a dead owner's to expire); false when the signal aborted first. */
async function takeLease(o: SessionRunOptions): Promise<boolean> {
  const { log, job, token, leaseMs, signal } = o;
  let said = false;
  while (!signal.aborted) {
    if (await log.acquire(job.sessionId, token, leaseMs)) return true;
    if (!said) o.print(`agentpipe worker: session ${job.sessionId}: waiting for the previous owner's lease to expire`);
    said = true;
    await pause(Math.max(50, Math.min(500, leaseMs / 4)), signal);
  }
  return false;
}

/** Runs the session of `o.job` until its input ends, it idles out, another worker takes it, or the signal aborts. */
export async function runClusterSession(o: SessionRunOptions): Promise<RunOutcome> {
  const { log, job, token, leaseMs } = o;
  const id = job.sessionId;
  const archived = o.archiveDir
    ? access(archiveFile(o.archiveDir, id)).then(
        () => true,
        () => false,
      )
    : Promise.resolve(false);
  // The lease and the log in one round trip (Redis runs them in order: nothing lands between them).
  const [leased, read] = await Promise.all([
    log.acquire(id, token, leaseMs),
    log.read(id).catch((error: unknown) => error as Error),
  ]);
  if (!leased && !(await takeLease(o))) return 'stopped';
  const stop = new AbortController();
  let fenced = false;
  const lose = (error: Error): void => {
    if (error instanceof FencedError) fenced = true;
    o.print(`agentpipe worker: session ${id}: stopping: ${error.message}`);
    stop.abort();
  };
  const renew = setInterval(
    () => {
      log.renew(id, token, leaseMs).catch((error: unknown) => {
        if (error instanceof FencedError) lose(error);
        else o.print(`agentpipe worker: session ${id}: lease renewal failed (retrying): ${(error as Error).message}`);
      });
    },
    Math.max(20, Math.floor(leaseMs / 3)),
  );
  const onAbort = (): void => stop.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  let temp: string | undefined;
  let localTranscript: string | undefined;
  const appender = new Appender({ log, sessionId: id, token, leaseMs }, lose);
  let detachDrain = (): void => undefined;
  let endInput = (): void => undefined;
  try {
    let entries = leased && !(read instanceof Error) ? read : await log.read(id);
    if (entries.length === 0) entries = await restoreArchive(o, archived);
    const cut = openTurn(entries);
    if (cut) {
      o.print(
        `agentpipe worker: session ${id}: prompt ${cut.promptUuid} was cut off by its worker's end; closing it ` +
          `with an error result`,
      );
      const cancels = openRequests(entries, cut.promptUuid).map(
        (requestId) => ({ type: 'control_cancel_request', request_id: requestId }) as unknown as LogMessage,
      );
      const closing = [...cancels, ...closingMessages(id, cut.unanswered)];
      const ids = await log.append(id, token, closing);
      closing.forEach((message, i) => entries.push({ id: ids[i]!, message, json: JSON.stringify(message) }));
    }
    const options = { ...job.options, sessionId: id, persistSession: true, sessionMirror: true };
    const lines = entries.map((e) => transcriptLine(e.message)).filter((l) => l !== undefined);
    const clientMirror = job.options.sessionMirror === true;
    if (lines.length) {
      temp = await mkdtemp(path.join(os.tmpdir(), 'agentpipe-worker-'));
      const file = path.join(temp, `${id}.jsonl`);
      await writeFile(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
      Object.assign(options, { resume: file, sessionId: undefined });
    }
    const seen = new Set(
      entries.flatMap(({ message: m }) =>
        m.type === 'user' && 'agentpipe_prompt' in m && m.agentpipe_prompt ? [m.uuid] : [],
      ),
    );
    const silent = new Set<string>();
    const tag = randomBytes(4).toString('hex');
    // Prompts taken from the inbox and not yet ended by a result (a draining run ends when none is left).
    let running = 0;
    const input = inboxInput(o, seen, silent, tag, stop.signal);
    endInput = () => input.end();
    input.onPrompt = () => running++;
    const endIfDrained = (): void => {
      if (o.drain?.aborted && running === 0) input.end();
    };
    o.drain?.addEventListener('abort', endIfDrained, { once: true });
    detachDrain = () => o.drain?.removeEventListener('abort', endIfDrained);
    endIfDrained();

    // A warm session is claimed by its first input line (a front end that hands it to a client adds one at once); one
    // with history, a moved cursor or input waiting (a takeover of a claimed one) is claimed already, and is not
    // marked ready again. Unclaimed, it ends after job.warmMs; one that wrote anything (a setup error) ends as any run
    // does.
    let claimed =
      !job.warmMs || entries.length > 0 || (await log.cursor(id)) !== '0-0' || (await log.hasPendingInput(id));
    if (claimed && job.warmMs) o.onClaimed?.();
    let wrote = false;
    let idle: NodeJS.Timeout | undefined;
    const touch = (): void => {
      clearTimeout(idle);
      const ms = claimed ? o.idleMs : (job.warmMs ?? o.idleMs);
      idle = setTimeout(() => {
        o.print(
          `agentpipe worker: session ${id}: ${claimed ? 'idle' : 'warm, not taken,'} for ${ms} ms; ending its run`,
        );
        input.end();
      }, ms);
      idle.unref();
    };
    touch();
    input.onLine = () => {
      if (!claimed) o.onClaimed?.();
      claimed = true;
      touch();
    };
    const write = (text: string): Promise<void> => {
      touch();
      const out: LogMessage[] = [];
      for (const raw of text.split('\n')) {
        if (!raw.trim()) continue;
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch {
          continue;
        }
        if (!isObject(value) || typeof value.type !== 'string') continue;
        if (value.type === 'transcript_mirror') {
          const entries: unknown[] = Array.isArray(value.entries) ? value.entries : [];
          for (const entry of entries)
            if (isObject(entry) && isTranscriptOnly(entry)) {
              out.push(entry as unknown as LogMessage);
              if (entry.agentpipe_prompt === true && typeof entry.uuid === 'string') input.started(entry.uuid);
            }
          if (clientMirror) out.push(value as unknown as LogMessage);
          wrote ||= out.length > 0;
          continue;
        }
        // The answer to a state request handled again after a takeover: the client had its answer from the old owner.
        if (
          value.type === 'control_response' &&
          isObject(value.response) &&
          silent.delete(String(value.response.request_id))
        )
          continue;
        if (
          (value.type === 'control_request' || value.type === 'control_cancel_request') &&
          typeof value.request_id === 'string'
        )
          value.request_id = `${value.request_id}@${tag}`;
        out.push(value as unknown as LogMessage);
        wrote = true;
        if (value.type === 'result') {
          running = Math.max(0, running - 1);
          queueMicrotask(endIfDrained);
        }
      }
      return appender.push(out);
    };
    await runStreamSession({
      options,
      input: input.lines,
      write,
      log: (line) => o.print(`${line} (session ${id})`),
      signal: stop.signal,
      replayUserMessages: job.stream.replayUserMessages,
      permissionPromptTool: job.stream.permissionPromptTool,
      awaitInitialize: job.stream.awaitInitialize,
      onSession: (session) => {
        localTranscript = session.transcript?.file;
        if (!claimed) o.onReady?.();
      },
    });
    clearTimeout(idle);
    await appender.drain();
    if (fenced || appender.failed instanceof FencedError) return 'fenced';
    // Nothing of it is in Redis but its lease: no end marker (no client follows it); the worker discards it.
    if (!claimed && !wrote) return 'unclaimed';
    if (o.signal.aborted || o.drain?.aborted) return 'stopped';
    // The client's registration (hooks, callbacks) ends with the run: a later run handles only its own client's.
    await log.forgetState(id, token, ['initialize']);
    const end: SessionEndMarker = {
      type: 'agentpipe_session_end',
      session_id: id,
      uuid: newUuid(),
      reason: 'input ended',
      timestamp: new Date().toISOString(),
    };
    await log.append(id, token, [end]);
    return 'ended';
  } catch (error) {
    if (error instanceof FencedError) return 'fenced';
    throw error;
  } finally {
    clearInterval(renew);
    detachDrain();
    endInput();
    o.signal.removeEventListener('abort', onAbort);
    await appender.drain();
    if (!fenced) await log.release(id, token).catch(() => undefined);
    if (temp) await rm(temp, { recursive: true, force: true });
    // The log is the session's record: the worker's local copy goes.
    if (localTranscript && !localTranscript.startsWith(temp ?? '\0'))
      await rm(localTranscript, { force: true }).catch(() => undefined);
  }
}

/**
 * Starts reading `lines` now (the inbox's cursor and first blocking read go on while the session
 * opens); `return()` of the result ends `lines` too.
 */
function prefetched<T>(lines: AsyncGenerator<T>): AsyncGenerator<T> {
  const first = lines.next();
  first.catch(() => undefined); // thrown when pulled
  return (async function* () {
    try {
      const head = await first;
      if (head.done) return;
      yield head.value;
      yield* lines;
    } finally {
      await lines.return(undefined);
    }
  })();
}

/** The session's input: catch-up after a takeover, then the inbox after the cursor; `end()` ends it. */
function inboxInput(
  o: SessionRunOptions,
  seen: Set<string>,
  silent: Set<string>,
  tag: string,
  signal: AbortSignal,
): {
  lines: AsyncGenerator<ParsedLine>;
  end(): void;
  /** The prompt with this uuid started (its prompt line is in the log): its inbox entry is no longer needed. */
  started(uuid: string): void;
  onLine?: () => void;
  onPrompt?: () => void;
} {
  const { log, job, token } = o;
  const id = job.sessionId;
  const ended = new AbortController();
  const both = AbortSignal.any([signal, ended.signal]);
  // Inbox entries of prompts taken but not started: a new owner would run them, so they stay in the inbox.
  const unstarted = new Map<string, string>();
  const self = {
    lines: prefetched(read()),
    end: () => ended.abort(),
    started: (uuid: string) => void unstarted.delete(uuid),
    onLine: undefined as (() => void) | undefined,
    onPrompt: undefined as (() => void) | undefined,
  };
  /** Gives user messages a stable uuid; undefined for the end of input. */
  const parse = (entryId: string, line: string): ParsedLine | undefined => {
    const parsed = parseInputLine(line);
    if (!parsed.ok) {
      if (/"end_input"/.test(line)) return undefined;
      return parsed;
    }
    if (parsed.message.type === 'user' && !parsed.message.uuid)
      parsed.message = { ...parsed.message, uuid: inputUuid(id, entryId) };
    if (parsed.message.type === 'control_response') {
      const tagged = TAGGED_REQUEST.exec(parsed.message.response.request_id);
      if (tagged)
        parsed.message = {
          ...parsed.message,
          // An answer to an earlier owner's request (cancelled): an id no request of this run has.
          response: { ...parsed.message.response, request_id: tagged[2] === tag ? tagged[1]! : tagged[0] },
        };
    }
    return parsed;
  };
  /** The oldest inbox entry still needed: an unstarted prompt's, else this one (entries before it are trimmed). */
  const keepFrom = (entryId: string): string => {
    let oldest = entryId;
    for (const kept of unstarted.values()) if (compareStreamIds(kept, oldest) < 0) oldest = kept;
    return oldest;
  };
  /**
   * Moves the cursor (trimming what no owner needs, keeping a state request for a new owner); a connection failure is
   * retried for a while (a FencedError ends the input: another worker owns the session).
   */
  async function setCursor(entryId: string, parsed?: ParsedLine): Promise<void> {
    const m = parsed?.ok ? parsed.message : undefined;
    const state =
      m?.type === 'control_request' && STATE_REQUESTS.has(m.request.subtype)
        ? { field: stateField(m.request as { subtype: string }), line: JSON.stringify(m) }
        : undefined;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await log.setCursor(id, token, entryId, { keepFrom: keepFrom(entryId), state });
      } catch (error) {
        if (!(error instanceof RedisConnectionError) || Date.now() - started > Math.max(o.leaseMs, 5000)) throw error;
        await pause(reconnectDelay(attempt), signal);
      }
    }
  }
  async function* read(): AsyncGenerator<ParsedLine> {
    const cursor = await log.cursor(id);
    if (cursor !== '0-0') {
      // The state the old owner had set, then its prompts it had taken but not started.
      const state = [...(await log.stateRequests(id)).entries()].sort(([a], [b]) =>
        a === 'initialize' ? -1 : b === 'initialize' ? 1 : 0,
      );
      for (const [, line] of state) {
        const parsed = parseInputLine(line);
        if (!parsed.ok || parsed.message.type !== 'control_request') continue;
        silent.add(parsed.message.request_id);
        yield parsed;
      }
      for (const entry of await log.readInput(id)) {
        if (compareStreamIds(entry.id, cursor) > 0) break;
        const parsed = parse(entry.id, entry.line);
        if (!parsed?.ok) continue;
        const m = parsed.message;
        if (m.type === 'user' && m.uuid && !seen.has(m.uuid)) {
          unstarted.set(m.uuid, entry.id);
          self.onPrompt?.();
          yield parsed;
        }
      }
    }
    for await (const entry of log.tailInput(id, cursor, both)) {
      self.onLine?.();
      const parsed = parse(entry.id, entry.line);
      if (!parsed) {
        await setCursor(entry.id);
        return;
      }
      if (parsed.ok && parsed.message.type === 'user') {
        // A draining run takes no new prompt: it stays in the inbox for the next owner.
        if (o.drain?.aborted) return;
        if (parsed.message.uuid) unstarted.set(parsed.message.uuid, entry.id);
        self.onPrompt?.();
      }
      yield parsed;
      // The runner took the line (queued a prompt, handled or started handling a request): a new owner goes on after
      // it.
      await setCursor(entry.id, parsed);
    }
  }
  return self;
}
