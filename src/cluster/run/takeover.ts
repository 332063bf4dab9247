/**
 * What a run that takes a session over finds in its log, and what it appends before it goes on.
 *
 * The cut turn is the last prompt whose turn has no `result`. In it, a tool call that started
 * (its `agentpipe_tool_start` line is there) and has no `tool_result` has an UNKNOWN outcome: the
 * worker that ran it was lost after it started. It is never run again: it gets a `tool_result`
 * that says its outcome is unknown, and the session's client a `system/worker_lost` notice. A
 * call that never started runs when the turn goes on. The requests the lost worker asked the
 * client in that turn (`can_use_tool`, `hook_callback`) are cancelled (a call tried again asks
 * anew). Then the turn CONTINUES on this worker: the model gets the recorded results, the unknown
 * ones included, and the prompt ends in the one result it would have had. A `/compact` command goes on by
 * compacting (or, when its compaction was recorded, by its result). A wrapped CLI's (`--harness`) turn goes on where
 * the wrapped CLI can resume its own session: each tool call of the turn without a result is of unknown outcome (the
 * wrapped CLI runs its tools unjournalled), and the wrapped CLI is asked to go on knowing that. Without a session id of
 * the wrapped CLI in the log, the turn ends with an error result that says why.
 */
import { newUuid } from '../../messages/ids.ts';
import type { ResultMessage, WorkerLostMessage } from '../../messages/types.ts';
import { userMessage } from '../../messages/user.ts';
import type { PromptLine } from '../../session/transcript-format.ts';
import { setupErrorResult } from '../../session/open.ts';
import type { LogEntry, LogMessage } from '../log/index.ts';

/** The message of the error result a prompt cut off by a lost worker gets when its turn cannot go on. */
export const WORKER_STOPPED = 'the worker running this prompt stopped; the session was resumed on another worker';

/** What a tool call whose outcome is unknown is answered with (the model reads it; so do people). */
export const UNKNOWN_OUTCOME =
  'The outcome of this tool call is unknown: the worker running it was lost (it stopped, or could not reach Redis ' +
  'for most of its lease) after the call started and before its result was recorded. It was not run again; ' +
  'check what it did before you repeat it.';

/** A tool call of the cut turn. */
export interface CutCall {
  id: string;
  name: string;
}

/** The turn a lost worker left without a result. */
export interface CutTurnFound {
  prompt: PromptLine;
  /** Calls that started and have no result. */
  unknown: CutCall[];
  /** Client requests of the turn still open (their ids): cancelled. */
  openRequests: string[];
  /** The worker that was running it, when the log names it. */
  previousWorker?: string;
}

/**
 * The requests a run sends the client get its run's tag (`<id>@<tag>`), so an answer that comes late for a request of
 * an earlier owner (cancelled at the takeover) never answers a request of the new owner that has the same id.
 */
export const TAGGED_REQUEST = /^(.+)@([0-9a-f]{8})$/;

/** Requests a worker asks the client during a turn: no answer can reach a lost worker. */
const CLIENT_REQUESTS = new Set(['can_use_tool', 'hook_callback']);

const isPrompt = (m: LogMessage): m is PromptLine => m.type === 'user' && 'agentpipe_prompt' in m && m.agentpipe_prompt;
const isMain = (m: LogMessage): boolean => !('parent_tool_use_id' in m) || m.parent_tool_use_id === null;

/** The tool_use blocks of an assistant message, the tool_result ids of a user message. */
function uses(m: LogMessage): CutCall[] {
  if (m.type !== 'assistant') return [];
  return m.message.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name }] : []));
}
function answered(m: LogMessage): string[] {
  if (m.type !== 'user' || typeof m.message.content === 'string') return [];
  return m.message.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));
}

/** Whether a cut turn can go on here (`reason`: why not, for its error result). */
export type Continuation = { continues: true } | { continues: false; reason: string };

/**
 * A turn of agentpipe's own loop (or a `/compact`) always goes on; a wrapped CLI's turn goes on when the log holds the
 * wrapped CLI's own session id (a `system/init` it sent), which the session resumes (claude/gemini `--resume`, codex's
 * thread, an ACP agent's session/load).
 */
export function continuationOf(entries: readonly LogEntry[], harness: string | undefined): Continuation {
  if (!harness || harness === 'agentpipe') return { continues: true };
  const reported = entries.some(
    (e) =>
      e.message.type === 'system' &&
      e.message.subtype === 'init' &&
      'harness' in e.message &&
      e.message.harness === harness &&
      typeof e.message.harness_session_id === 'string',
  );
  return reported
    ? { continues: true }
    : { continues: false, reason: `the wrapped CLI (${harness}) had not reported a session of its own to resume` };
}

/** The worker id in an owner token (`<worker id>:<job id>:<random>`). */
export const workerOfToken = (token: string | undefined): string | undefined =>
  token === undefined ? undefined : (/^(.+):[^:]+:[^:]+$/.exec(token)?.[1] ?? token);

/**
 * The cut turn of a log, if it ends in one. With `wrapped` (a wrapped CLI ran it, its tool calls unjournalled), every
 * tool call of the turn without a result is of unknown outcome.
 */
export function findCutTurn(entries: readonly LogEntry[], wrapped = false): CutTurnFound | undefined {
  const start = entries.findLastIndex((e) => isPrompt(e.message));
  if (start < 0) return undefined;
  const turn = entries.slice(start + 1).map((e) => e.message);
  if (turn.some((m) => m.type === 'result')) return undefined;
  const prompt = entries[start]!.message;
  if (!isPrompt(prompt)) return undefined;
  const results = new Set(turn.filter(isMain).flatMap(answered));
  const called = new Map(turn.filter(isMain).flatMap((m) => uses(m).map((c) => [c.id, c] as const)));
  const started = turn.flatMap((m) => (m.type === 'agentpipe_tool_start' && m.parent_tool_use_id === null ? [m] : []));
  const unknown = wrapped
    ? [...called.values()].filter((c) => !results.has(c.id))
    : started
        .filter((s) => !results.has(s.tool_use_id))
        .map((s) => called.get(s.tool_use_id) ?? { id: s.tool_use_id, name: s.tool_name });
  const allAnswered = new Set(turn.flatMap(answered));
  const openRequests = turn.flatMap((m) => {
    if (m.type !== 'control_request' || !CLIENT_REQUESTS.has(m.request.subtype)) return [];
    const request: Record<string, unknown> = m.request;
    const input = request.input;
    const toolUse =
      request.tool_use_id ??
      (typeof input === 'object' && input !== null && 'tool_use_id' in input ? input.tool_use_id : undefined);
    return typeof toolUse === 'string' && allAnswered.has(toolUse) ? [] : [m.request_id];
  });
  const previousWorker = workerOfToken(entries.at(-1)?.owner);
  return { prompt, unknown, openRequests, ...(previousWorker ? { previousWorker } : {}) };
}

/** The `system/worker_lost` notice of a takeover. */
export function workerLostNotice(
  sessionId: string,
  worker: string,
  cut: CutTurnFound | undefined,
  continues: boolean,
): WorkerLostMessage {
  const who = cut?.previousWorker ? `worker ${cut.previousWorker}` : 'the worker';
  const calls = cut?.unknown.length
    ? ` The outcome of ${cut.unknown.map((c) => `${c.name} (${c.id})`).join(', ')} is unknown: ` +
      `${cut.unknown.length === 1 ? 'it was' : 'they were'} not run again.`
    : '';
  const next = !cut ? '' : continues ? ' The prompt goes on here.' : ' The prompt that was running ends here.';
  return {
    type: 'system',
    subtype: 'worker_lost',
    content: `${who} running this session was lost; worker ${worker} took the session over.${next}${calls}`,
    worker,
    ...(cut?.previousWorker ? { previous_worker: cut.previousWorker } : {}),
    ...(cut ? { prompt_uuid: cut.prompt.uuid } : {}),
    unknown_tool_use_ids: cut?.unknown.map((c) => c.id) ?? [],
    uuid: newUuid(),
    session_id: sessionId,
  };
}

/**
 * What a takeover appends before the session opens: the cancels of the open client requests, the notice, a
 * `tool_result` for each call of unknown outcome and, when the turn cannot go on, its error result.
 */
export function takeoverMessages(
  sessionId: string,
  worker: string,
  cut: CutTurnFound,
  continuation: Continuation,
): LogMessage[] {
  const cancels: LogMessage[] = cut.openRequests.map((id) => ({ type: 'control_cancel_request', request_id: id }));
  const unknown = cut.unknown.map((call) =>
    userMessage(
      [{ type: 'tool_result', tool_use_id: call.id, content: UNKNOWN_OUTCOME, is_error: true }],
      sessionId,
      null,
      {
        tool_use_result: `Error: ${UNKNOWN_OUTCOME}`,
      },
    ),
  );
  const closing: ResultMessage[] = continuation.continues
    ? []
    : [
        {
          ...setupErrorResult(`${WORKER_STOPPED}: ${continuation.reason}`, sessionId),
          terminal_reason: cut.unknown.length ? 'aborted_tools' : 'aborted_streaming',
        },
      ];
  return [...cancels, workerLostNotice(sessionId, worker, cut, continuation.continues), ...unknown, ...closing];
}
