/**
 * Rebuilds what a session needs to go on from its transcript: the model-facing history
 * (exactly the entries the loop had pushed), the user message uuids already processed, and
 * whether the last turn was cut off. Assistant messages (one per content block, sharing
 * `message.id`) are merged back; tool results of one call batch become one user entry again.
 * A turn cut off mid-way (kill -9, or a `--resume-session-at` point) is closed the way an
 * interrupt closes it live: unanswered tool calls get an error result, then the notice; or, with
 * `keepCutTurn` (a cluster worker taking a session over), it is left open to be continued. Lines the
 * reader skipped (not JSON, or the wrong shape) may leave a tool call without its result or a result
 * without its call: they are paired again (`pairToolCalls`), so the resumed session can go on (the
 * calls of a turn left open stay open: they run, or are reported, when it goes on).
 */
import { compactCommandOf } from '../agent/compact.ts';
import { INTERRUPTED, INTERRUPTED_TOOLS } from '../messages/notices.ts';
import type { MessageParam, ToolResultBlock, ToolUseBlock } from '../messages/types.ts';
import type { TranscriptLine } from './transcript-format.ts';

/** A turn the transcript ends in the middle of, left open to be continued (`keepCutTurn`). */
export interface CutTurn {
  /** The uuid of its prompt. */
  promptUuid: string;
  /** Tool calls of the last answer that have no result: they run first. */
  pendingUses: ToolUseBlock[];
  /** The final answer's text, when the answer was complete and only the result is missing. */
  answer?: string;
  /**
   * The turn is a `/compact` command: it goes on by compacting (again, from the history before it), or, when its
   * compaction was recorded and only its result is missing, by that result.
   */
  compact?: CutCompact;
}

/** A `/compact` command cut off before its result. */
export interface CutCompact {
  /** The command's instructions (`/compact <instructions>`), empty without. */
  instructions: string;
  /** Its compaction was recorded (the `compact_boundary`): the token counts of its result. */
  done?: { preTokens: number; postTokens: number };
}

export interface RebuiltSession {
  sessionId?: string;
  history: MessageParam[];
  seenUuids: Set<string>;
  /** Uuid of the last line kept. */
  lastUuid?: string;
  /**
   * The wrapped agent that ran the session (`--harness`) and its own session id, from the last `system/init` that named
   * them.
   */
  harness?: { name: string; sessionId: string };
  /** The turn the transcript ends in, with `keepCutTurn`. */
  cutTurn?: CutTurn;
}

interface State extends RebuiltSession {
  inTurn: boolean;
  lastAssistantId?: string;
  /** The prompt of the turn in progress. */
  turnPrompt?: string;
  /** The stop reason the last assistant line carried (null until its answer completed). */
  lastStop?: unknown;
  /** The `/compact` command in progress (its prompt's uuid and what it was asked), until its result. */
  command?: { uuid: string } & CutCompact;
}

/** Replays `lines` (up to and including the line with uuid `until`, when given). */
export function rebuild(
  lines: TranscriptLine[],
  until?: string,
  options: { keepCutTurn?: boolean } = {},
): RebuiltSession & { found: boolean } {
  const state: State = { history: [], seenUuids: new Set(), inTurn: false };
  let found = until === undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    apply(state, line);
    if (until !== undefined && line.uuid === until) {
      found = true;
      // Keep the rest of an assistant message whose first block was chosen.
      const sameMessage = (next: TranscriptLine | undefined) =>
        line.type === 'assistant' && next?.type === 'assistant' && next.message.id === line.message.id;
      while (sameMessage(lines[i + 1])) apply(state, lines[++i]);
      // A turn that ended right there ends as it did.
      if (lines[i + 1]?.type === 'result') apply(state, lines[i + 1]);
      break;
    }
  }
  const cutTurn = !options.keepCutTurn
    ? undefined
    : state.command
      ? { promptUuid: state.command.uuid, pendingUses: [], compact: compactOf(state.command) }
      : state.inTurn && state.turnPrompt
        ? openTurn(state)
        : undefined;
  if (state.inTurn && !cutTurn) closeTurn(state.history);
  pairToolCalls(state.history, { leaveLastOpen: cutTurn !== undefined });
  return {
    sessionId: state.sessionId,
    history: state.history,
    seenUuids: state.seenUuids,
    lastUuid: state.lastUuid,
    harness: state.harness,
    ...(cutTurn ? { cutTurn } : {}),
    found,
  };
}

function compactOf({ instructions, done }: CutCompact): CutCompact {
  return { instructions, ...(done ? { done } : {}) };
}

/**
 * The turn the history ends in, left open: the tool calls of its last answer that have no result, or the answer's
 * text when it was complete. An answer cut off while it streamed, with no tool call in it, is dropped (the model is
 * asked again).
 */
function openTurn(state: State): CutTurn {
  const history = state.history;
  const promptUuid = state.turnPrompt!;
  const last = history.at(-1);
  if (last?.role === 'assistant') {
    const uses = blocksOf(last).filter((b): b is ToolUseBlock => b.type === 'tool_use');
    if (uses.length) return { promptUuid, pendingUses: uses };
    if (state.lastStop !== null && state.lastStop !== undefined) {
      const text = blocksOf(last)
        .flatMap((b) => (b.type === 'text' ? [b.text] : []))
        .join('');
      return { promptUuid, pendingUses: [], answer: text };
    }
    history.pop();
    return { promptUuid, pendingUses: [] };
  }
  const lastAssistant = history.findLastIndex((m) => m.role === 'assistant');
  const promptAt = history.findLastIndex((m) => m.role === 'user' && isPromptOf(m));
  if (lastAssistant < 0 || lastAssistant < promptAt) return { promptUuid, pendingUses: [] };
  const answered = new Set(
    history
      .slice(lastAssistant + 1)
      .flatMap(blocksOf)
      .flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])),
  );
  const pendingUses = blocksOf(history[lastAssistant]!).filter(
    (b): b is ToolUseBlock => b.type === 'tool_use' && !answered.has(b.id),
  );
  return { promptUuid, pendingUses };
}

/** A user entry that is a prompt (text, no tool results). */
const isPromptOf = (message: MessageParam): boolean => !blocksOf(message).some((b) => b.type === 'tool_result');

function apply(state: State, line: TranscriptLine): void {
  if (typeof line.session_id === 'string' && line.session_id) state.sessionId ??= line.session_id;
  if (typeof line.uuid === 'string') state.lastUuid = line.uuid;
  const main = line.parent_tool_use_id === null || line.parent_tool_use_id === undefined;
  switch (line.type) {
    case 'system':
      if (line.subtype === 'init' && typeof line.harness === 'string' && typeof line.harness_session_id === 'string') {
        state.harness = { name: line.harness, sessionId: line.harness_session_id };
      }
      if (line.subtype === 'compact_boundary' && state.command && line.compact_metadata) {
        const { pre_tokens, post_tokens } = line.compact_metadata;
        state.command.done = { preTokens: pre_tokens, postTokens: post_tokens ?? pre_tokens };
      }
      return;
    case 'agentpipe_snapshot':
      state.history = structuredClone(line.history);
      if (line.seen_uuids) state.seenUuids = new Set(line.seen_uuids);
      if (line.reason !== 'compact') state.inTurn = false;
      state.lastAssistantId = undefined;
      return;
    case 'user': {
      if (!main || line.isReplay) return;
      state.lastAssistantId = undefined;
      if (line.agentpipe_prompt || line.agentpipe_context) {
        if (state.inTurn) closeTurn(state.history);
        state.inTurn = false;
      }
      if (line.agentpipe_prompt) {
        if (typeof line.uuid === 'string') state.seenUuids.add(line.uuid);
        state.turnPrompt = line.agentpipe_command ? undefined : line.uuid;
        state.inTurn = !line.agentpipe_command;
        state.command =
          line.agentpipe_command && typeof line.uuid === 'string'
            ? { uuid: line.uuid, instructions: compactCommandOf(line.message.content) ?? '' }
            : undefined;
        if (line.agentpipe_command) return;
      }
      const notice = noticeOf(line.message.content);
      // Live, an interrupt keeps what was streamed (text cut short included); tool calls without a result get one that
      // was not emitted.
      if (notice === INTERRUPTED || notice === INTERRUPTED_TOOLS) fillMissingResults(state.history);
      state.history.push({ role: 'user', content: structuredClone(line.message.content) });
      return;
    }
    case 'assistant': {
      if (!main || line.error) return;
      const last = state.history.at(-1);
      const blocks = structuredClone(line.message.content);
      if (last?.role === 'assistant' && state.lastAssistantId === line.message.id && Array.isArray(last.content))
        last.content.push(...blocks);
      // Another answer right after an answer (no user entry between) replaces it, as the loop's history does: the first
      // was given up (a request retried after part of it was emitted, or an answer cut off and asked again after a
      // takeover); kept, it would be an answer the model never saw as its own.
      else if (last?.role === 'assistant' && state.lastAssistantId !== undefined)
        state.history[state.history.length - 1] = { role: 'assistant', content: blocks };
      else state.history.push({ role: 'assistant', content: blocks });
      state.lastAssistantId = line.message.id;
      state.lastStop = line.message.stop_reason ?? null;
      return;
    }
    case 'result':
      state.command = undefined;
      // Tools a hook kept from running got results that were not emitted.
      fillMissingResults(state.history);
      // A model answer without any block is not emitted, but the loop recorded an empty text (not
      // after a failed request, which ends in a success with is_error and records no answer).
      if (
        line.subtype === 'success' &&
        line.is_error !== true &&
        state.inTurn &&
        state.history.at(-1)?.role === 'user'
      ) {
        state.history.push({ role: 'assistant', content: [{ type: 'text', text: '' }] });
      }
      state.inTurn = false;
      state.lastAssistantId = undefined;
      return;
  }
}

/**
 * Closes a turn that was cut off (killed): what the model had streamed is kept, unanswered
 * tool calls get an interrupted result (tool pairs stay whole), then the notice.
 */
export function closeTurn(history: MessageParam[]): void {
  const filled = fillMissingResults(history);
  history.push({ role: 'user', content: [{ type: 'text', text: filled ? INTERRUPTED_TOOLS : INTERRUPTED }] });
}

/** Adds an error result for each tool call of the last answer that has none; true when any was added. */
function fillMissingResults(history: MessageParam[]): boolean {
  const lastAssistant = history.findLastIndex((m) => m.role === 'assistant');
  if (lastAssistant < 0) return false;
  const uses = blocksOf(history[lastAssistant]).filter((b): b is ToolUseBlock => b.type === 'tool_use');
  const answered = new Set(
    history
      .slice(lastAssistant + 1)
      .flatMap(blocksOf)
      .filter((b): b is ToolResultBlock => b.type === 'tool_result')
      .map((b) => b.tool_use_id),
  );
  const missing = uses.filter((u) => !answered.has(u.id));
  if (missing.length === 0) return false;
  history.push({
    role: 'user',
    content: missing.map((u) => ({
      type: 'tool_result',
      tool_use_id: u.id,
      content: INTERRUPTED_TOOLS,
      is_error: true,
    })),
  });
  return true;
}

/** What a call whose result was lost from the transcript (a skipped line) gets instead. */
export const LOST_RESULT = '[The result of this tool call could not be read back from the transcript]';

/**
 * Makes every tool call and result a pair again, as the API requires: a result that answers no call
 * of the answer before it is dropped (its call's line was skipped), and a call left without a result
 * gets an error result right after its answer. A transcript that was read whole has neither.
 */
export function pairToolCalls(history: MessageParam[], options: { leaveLastOpen?: boolean } = {}): void {
  let open = new Set<string>();
  let answerAt = -1;
  const closeOpen = (at: number): number => {
    if (open.size === 0) return 0;
    const results: ToolResultBlock[] = [...open].map((id) => ({
      type: 'tool_result',
      tool_use_id: id,
      content: LOST_RESULT,
      is_error: true,
    }));
    history.splice(at, 0, { role: 'user', content: results });
    open = new Set();
    return 1;
  };
  for (let i = 0; i < history.length; i++) {
    const message = history[i]!;
    if (message.role === 'assistant') {
      i += closeOpen(answerAt + 1);
      open = new Set(blocksOf(history[i]!).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
      answerAt = i;
      continue;
    }
    if (typeof message.content === 'string') continue;
    const kept = message.content.filter((b) => b.type !== 'tool_result' || open.delete(b.tool_use_id));
    if (kept.length === message.content.length) continue;
    if (kept.length > 0) history[i] = { ...message, content: kept };
    else history.splice(i--, 1);
  }
  if (!options.leaveLastOpen) closeOpen(answerAt + 1);
}

/** The interruption notice a user message consists of, if it is one. */
function noticeOf(content: MessageParam['content']): string | undefined {
  if (typeof content === 'string' || content.length !== 1 || content[0].type !== 'text') return undefined;
  const text = content[0].text;
  return text === INTERRUPTED || text === INTERRUPTED_TOOLS ? text : undefined;
}

function blocksOf(message: MessageParam): Array<Exclude<MessageParam['content'], string>[number]> {
  return typeof message.content === 'string' ? [] : message.content;
}
