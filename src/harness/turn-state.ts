/**
 * What every translator of a wrapped agent needs while one prompt runs: `system/init` first
 * (exactly once, whatever the CLI prints first), turns counted as Claude Code counts them, the
 * final text, unknown event types reported once each, and the builders of the messages it
 * emits (assistant blocks, tool results, stream deltas for CLIs that only print whole texts).
 */
import type {
  AgentMessage,
  AssistantContentBlock,
  PermissionDenial,
  StopReason,
  StreamEvent,
  UserContentBlock,
} from '../messages/types.ts';
import type { UserMessage, AssistantMessage } from '../messages/types.ts';
import { apiMessage } from '../messages/usage.ts';
import { newApiId, newUuid } from '../messages/ids.ts';
import { userMessage } from '../messages/user.ts';
import { INTERRUPTED } from '../messages/notices.ts';
import type { HarnessConfig, HarnessInit, HarnessOutcome, HarnessTurn } from './types.ts';

export class TurnState {
  /** The prompt plus every user message emitted since. */
  numTurns = 1;
  /** The last assistant text (the answer on success). */
  text = '';
  readonly denials: PermissionDenial[] = [];
  #initSent = false;
  /** How many events of each kind the translator did not know, this prompt. */
  readonly unknownCounts = new Map<string, number>();
  /** Notices of unknown events met before `system/init` (the stream starts with it): emitted right after it. */
  readonly #notices: AgentMessage[] = [];
  /** The notices on their way into the stream: the next message waits for them. */
  #noticesSent: Promise<void> = Promise.resolve();
  /** Tool calls announced and not answered yet, with their heartbeat timers (`tool_progress`). */
  readonly #running = new Map<string, NodeJS.Timeout>();
  /** The wrapped CLI sends its own `tool_progress`: no heartbeats of ours. */
  #ownProgress = false;

  readonly turn: HarnessTurn;
  readonly config: HarnessConfig;
  readonly sessionId: string;

  /** `heartbeats: false` for a CLI known to send its own `tool_progress` (Claude Code). */
  constructor(turn: HarnessTurn, config: HarnessConfig, sessionId: string, options: { heartbeats?: boolean } = {}) {
    this.turn = turn;
    this.config = config;
    this.sessionId = sessionId;
    this.#ownProgress = options.heartbeats === false;
  }

  /** Emits `system/init` with what the CLI reported (once; later calls do nothing). */
  async init(fields: HarnessInit = {}): Promise<void> {
    if (this.#initSent) return;
    this.#initSent = true;
    await this.turn.emit(this.turn.init(fields));
    for (const notice of this.#notices.splice(0)) await this.turn.emit(notice);
  }

  /**
   * Emits a message, `system/init` before the first one; a tool call unanswered past the threshold gets `tool_progress`
   * heartbeats.
   */
  async emit(message: AgentMessage): Promise<void> {
    if (!this.#initSent) await this.init();
    await this.#noticesSent;
    this.#track(message);
    if (message.type === 'user' && !message.isReplay) this.numTurns++;
    if (message.type === 'assistant' && message.parent_tool_use_id === null) {
      const text = message.message.content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');
      if (text) this.text = text;
    }
    await this.turn.emit(message);
  }

  #track(message: AgentMessage): void {
    if (message.type === 'tool_progress') {
      this.#ownProgress = true;
      this.stopHeartbeats();
      return;
    }
    if (message.type === 'assistant' && message.parent_tool_use_id === null && !this.#ownProgress) {
      for (const block of message.message.content)
        if (block.type === 'tool_use' && !this.#running.has(block.id)) this.#heartbeat(block.id, block.name);
    }
    if (message.type === 'user' && message.parent_tool_use_id === null && Array.isArray(message.message.content)) {
      for (const block of message.message.content) {
        if (block.type !== 'tool_result') continue;
        clearInterval(this.#running.get(block.tool_use_id));
        this.#running.delete(block.tool_use_id);
      }
    }
  }

  /**
   * `tool_progress` every interval once a call ran past the threshold (the session's settings, as for agentpipe's own
   * tools).
   */
  #heartbeat(id: string, name: string): void {
    const started = Date.now();
    const { thresholdMs, intervalMs } = this.config.progress ?? { thresholdMs: 1000, intervalMs: 1000 };
    const beat = () => {
      if (!this.#running.has(id)) return;
      const message: AgentMessage = {
        type: 'tool_progress',
        tool_use_id: id,
        tool_name: name,
        parent_tool_use_id: null,
        elapsed_time_seconds: Math.round((Date.now() - started) / 100) / 10,
        session_id: this.sessionId,
        uuid: newUuid(),
      };
      this.turn.emit(message).catch(() => this.stopHeartbeats());
    };
    const first = setTimeout(() => {
      beat();
      if (this.#running.has(id)) this.#running.set(id, setInterval(beat, intervalMs).unref());
    }, thresholdMs).unref();
    this.#running.set(id, first);
  }

  /** Stops every heartbeat (the outcome methods do it; a translator that builds its own outcome calls it). */
  stopHeartbeats(): void {
    for (const timer of this.#running.values()) clearInterval(timer);
    this.#running.clear();
  }

  /**
   * Counts an event the translator does not know and reports it, once per kind per prompt: on stderr, and in the
   * stream as a `system/informational` warning (a client sees that the wrapped CLI said something agentpipe did not
   * pass on). The notice enters the stream at once, so it comes before the prompt's result.
   */
  unknown(kind: string, detail = ''): void {
    const count = (this.unknownCounts.get(kind) ?? 0) + 1;
    this.unknownCounts.set(kind, count);
    if (count > 1) return;
    const content = `harness ${this.config.name}: ignored an unknown ${kind}${detail ? ` (${detail})` : ''}`;
    this.config.warn(content);
    const notice: AgentMessage = {
      type: 'system',
      subtype: 'informational',
      level: 'warning',
      content: content.slice(0, 500),
      session_id: this.sessionId,
      uuid: newUuid(),
    };
    if (!this.#initSent) this.#notices.push(notice);
    // A stream that cannot take the notice fails the next message too, which says so: not twice.
    else
      this.#noticesSent = Promise.all([this.#noticesSent, this.turn.emit(notice)]).then(
        () => undefined,
        () => undefined,
      );
  }

  /** One assistant message holding `blocks`. */
  assistant(
    blocks: AssistantContentBlock[],
    model: string,
    stopReason: StopReason | null = null,
    parentToolUseId: string | null = null,
  ): AssistantMessage {
    return {
      type: 'assistant',
      parent_tool_use_id: parentToolUseId,
      session_id: this.sessionId,
      uuid: newUuid(),
      message: apiMessage({ id: newApiId('msg'), model, content: blocks, stop_reason: stopReason }),
    };
  }

  /** The user message carrying one tool result. */
  toolResult(toolUseId: string, content: string, isError: boolean, toolUseResult?: unknown): UserMessage {
    const block: UserContentBlock = {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content,
      ...(isError ? { is_error: true } : {}),
    };
    return userMessage(
      [block],
      this.sessionId,
      null,
      toolUseResult === undefined ? {} : { tool_use_result: toolUseResult },
    );
  }

  /**
   * Emits a whole text as the stream events of one message (id `messageId`: the final message's), when partial messages
   * were asked for.
   */
  async streamText(text: string, model: string, kind: 'text' | 'thinking' = 'text', messageId?: string): Promise<void> {
    if (!this.config.includePartialMessages || !text) return;
    const start = this.assistant([], model).message;
    // The final assistant message must carry the same id, or the faces show the text twice.
    if (messageId) start.id = messageId;
    const block: AssistantContentBlock =
      kind === 'text' ? { type: 'text', text: '', citations: null } : { type: 'thinking', thinking: '', signature: '' };
    const delta =
      kind === 'text'
        ? { type: 'text_delta' as const, text }
        : { type: 'thinking_delta' as const, thinking: text, estimated_tokens: null };
    const events: StreamEvent[] = [
      { type: 'message_start', message: start },
      { type: 'content_block_start', index: 0, content_block: block },
      { type: 'content_block_delta', index: 0, delta },
      { type: 'content_block_stop', index: 0 },
    ];
    for (const event of events) await this.streamEvent(event);
  }

  /** Emits one `stream_event`. */
  async streamEvent(event: StreamEvent): Promise<void> {
    await this.emit({
      type: 'stream_event',
      event,
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid: newUuid(),
    });
  }

  /** The outcome of a prompt that went to its end. */
  success(stopReason: string | null = 'end_turn'): HarnessOutcome {
    this.stopHeartbeats();
    return {
      subtype: 'success',
      text: this.text,
      errors: [],
      numTurns: this.numTurns,
      turns: this.numTurns,
      stopReason,
      terminalReason: 'completed',
    };
  }

  /** The outcome of a prompt that failed with `errors`. */
  failure(
    errors: string[],
    terminalReason: HarnessOutcome['terminalReason'] = 'model_error',
    subtype: HarnessOutcome['subtype'] = 'error_during_execution',
  ): HarnessOutcome {
    this.stopHeartbeats();
    return {
      subtype,
      text: '',
      errors,
      numTurns: this.numTurns,
      turns: this.numTurns,
      stopReason: null,
      terminalReason,
    };
  }

  /** Emits the interruption notice, as agentpipe's own loop does, and returns the outcome of an interrupted prompt. */
  async interrupted(): Promise<HarnessOutcome> {
    this.stopHeartbeats();
    await this.emit(userMessage([{ type: 'text', text: INTERRUPTED }], this.sessionId, null));
    return this.failure([INTERRUPTED], 'aborted_streaming');
  }
}
