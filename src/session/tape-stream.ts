/**
 * The session's stream and a tape. Recording: every message goes on the tape (not the heartbeats, whose number
 * depends on the clock), each prompt also as a `prompt` line. Replaying: each message takes the recorded ids and
 * clock values (tape-ids.ts); the message named by `--replay-until` is the fork point, after which the run is live;
 * and a prompt during which the run left the tape ends with an error result that says where.
 */
import type { AgentMessage, ResultMessage } from '../messages/types.ts';
import type { TapeLine } from '../model/tape/format.ts';
import { RecordedIds } from './tape-ids.ts';

/** What the stream tap does. */
export interface StreamTapOptions {
  /** Writes a line on the tape being recorded. */
  record?: (line: TapeLine) => void;
  /** The messages of the tape being replayed. */
  recorded?: AgentMessage[];
  /** The fork point, and what to do when it passed. */
  until?: { uuid: string; fork: () => void };
  /** The first divergence from the tape being replayed, if any so far. */
  divergence: () => string | undefined;
}

export class StreamTap {
  readonly #options: StreamTapOptions;
  readonly #ids?: RecordedIds;
  #live = false;

  constructor(options: StreamTapOptions) {
    this.#options = options;
    if (options.recorded) this.#ids = new RecordedIds(options.recorded);
  }

  /** True once the fork point passed. */
  get live(): boolean {
    return this.#live;
  }

  /** The message as the stream carries it on. */
  message(message: AgentMessage): AgentMessage {
    let out = message;
    // Once the run left the tape, its messages are its own (no recorded ids or times for what never happened).
    if (this.#ids && !this.#live && this.#options.divergence() === undefined) out = this.#ids.apply(out);
    if (out.type === 'result') out = this.#withDivergence(out);
    const record = this.#options.record;
    if (record && out.type !== 'tool_progress') {
      record({ type: 'message', message: out });
      if (out.type === 'user' && 'isReplay' in out && out.isReplay)
        record({ type: 'prompt', uuid: out.uuid, content: out.message.content });
    }
    const until = this.#options.until;
    if (until && !this.#live && out.uuid === until.uuid) {
      this.#live = true;
      until.fork();
    }
    return out;
  }

  /** A result of a prompt during which the run left the tape: an error that says where. */
  #withDivergence(result: ResultMessage): ResultMessage {
    const divergence = this.#options.divergence();
    if (divergence === undefined) return result;
    return {
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      duration_ms: result.duration_ms,
      duration_api_ms: result.duration_api_ms,
      num_turns: result.num_turns,
      stop_reason: result.stop_reason,
      session_id: result.session_id,
      total_cost_usd: result.total_cost_usd,
      usage: result.usage,
      modelUsage: result.modelUsage,
      permission_denials: result.permission_denials,
      terminal_reason: 'model_error',
      ...(result.fast_mode_state ? { fast_mode_state: result.fast_mode_state } : {}),
      uuid: result.uuid,
      errors: [divergence],
    };
  }
}
