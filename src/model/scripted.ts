/**
 * The embedded `scripted` model: a real provider that needs no network. It answers each
 * request with the next turn of a script (or of the built-in demo) and streams it in small
 * deltas with usage, exactly like a remote model would.
 */
import { sleep } from '../process/retry.ts';
import type { AssistantContentBlock, ContentDelta, MessageParam, StopReason, StreamEvent } from '../messages/types.ts';
import { PrefixMemo } from '../messages/prefix-memo.ts';
import { newApiId } from '../messages/ids.ts';
import { apiMessage, apiUsage, messageDelta } from '../messages/usage.ts';
import { ModelError } from './errors.ts';
import type { ModelProvider, ModelRequest } from './types.ts';
import { isArray, isRecord } from '../process/guards.ts';

/** One answer of the script. Unknown fields are ignored. */
export interface ScriptTurn {
  thinking?: string;
  text?: string;
  tool_calls?: Array<{ name: string; input?: Record<string, unknown>; id?: string }>;
  /** Reported usage; estimated from text length (4 characters a token) when absent. */
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  };
  /** Pause before each delta, in milliseconds. */
  delay_ms?: number;
  /** Characters per text, thinking or JSON delta (default 16). */
  chunk_size?: number;
  /** Make this request fail as a provider would (HTTP status and message). */
  error?: { status: number; message?: string; retry_after_s?: number };
  /** Override the stop reason (default: tool_use when there are tool calls, else end_turn). */
  stop_reason?: StopReason;
  /** Model name reported in the message (default: the requested one). */
  model?: string;
}

/** A script file: `{"turns": [...]}`. */
export interface Script {
  turns: ScriptTurn[];
  /**
   * Which turn answers a request: `sequence` (default) the next one, one per request of the process, shared by the
   * whole session; `history` the one at the index of the number of answers in the request's history, so a session
   * resumed anywhere (another process, a cluster worker taking it over) gets the same answers a stateless model
   * would give.
   */
  order?: 'sequence' | 'history';
}

/** Where turns come from: a fixed script, or a function of the request (the demo). */
export interface ScriptSource {
  next(request: ModelRequest): ScriptTurn | undefined;
}

/** Serves the turns of a script in order, one per request, shared by the whole session. */
export class FixedScript implements ScriptSource {
  readonly #turns: ScriptTurn[];
  readonly #order: Script['order'];
  #cursor: number;
  constructor(script: Script, start = 0) {
    this.#turns = script.turns;
    this.#order = script.order;
    this.#cursor = start;
  }
  /** Index of the next turn to serve. */
  get cursor(): number {
    return this.#cursor;
  }
  next(request?: ModelRequest): ScriptTurn | undefined {
    if (this.#order === 'history' && request)
      return this.#turns[request.messages.filter((m) => m.role === 'assistant').length];
    return this.#turns[this.#cursor++];
  }
}

/** Checks the shape of a parsed script file; throws a clear error. */
export function validateScript(value: unknown, source = 'script'): Script {
  const script = isRecord(value) ? value : {};
  const turns: unknown = script.turns;
  if (!isArray(turns)) throw new Error(`${source}: expected {"turns": [...]}`);
  const checked = turns.map((turn, i) => {
    checkTurn(turn, `${source}: turn ${i}`);
    return turn;
  });
  const order = script.order;
  if (order !== undefined && order !== 'sequence' && order !== 'history')
    throw new Error(`${source}: order must be "sequence" or "history"`);
  return { turns: checked, ...(order ? { order } : {}) };
}

/** Checks what a turn must have (an object; tool calls, if any, each with a name); the rest is read leniently. */
function checkTurn(turn: unknown, where: string): asserts turn is ScriptTurn {
  if (!isRecord(turn)) throw new Error(`${where} is not an object`);
  if (turn.tool_calls === undefined) return;
  if (!isArray(turn.tool_calls)) throw new Error(`${where}: tool_calls must be an array`);
  for (const call of turn.tool_calls) {
    if (!isRecord(call) || typeof call.name !== 'string') throw new Error(`${where}: every tool call needs a "name"`);
  }
}

const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/**
 * The length of `JSON.stringify(messages)`, counted per message and kept between requests (PrefixMemo, one per
 * conversation: keyed by its first message), so a request's estimate does not cost more as the session grows.
 */
class JsonLength {
  readonly #memos = new WeakMap<object, PrefixMemo<MessageParam, number>>();

  of(messages: readonly MessageParam[]): number {
    const first = messages[0];
    if (!first) return 2;
    let memo = this.#memos.get(first);
    if (!memo) this.#memos.set(first, (memo = new PrefixMemo((total, m) => (total ?? 0) + JSON.stringify(m).length)));
    // `[`, `]` and a comma between two messages.
    return memo.update(messages)! + messages.length + 1;
  }
}

export class ScriptedProvider implements ModelProvider {
  readonly specificationVersion = 'v1';
  readonly provider = 'scripted';
  /** No window: a script stays predictable, and compacts only when `maxContextTokens` asks for it. */
  contextWindow(): number {
    return Infinity;
  }
  /** A script turn that names a model plays that model (its cost is priced as that model's). */
  usageModel(asked: string, answered: string): string {
    return answered || asked;
  }
  readonly apiKeySource = 'none';
  readonly #source: ScriptSource;
  readonly #sent = new JsonLength();

  constructor(source: ScriptSource) {
    this.#source = source;
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamEvent> {
    const signal = request.abortSignal;
    signal.throwIfAborted();
    const turn = this.#source.next(request) ?? {};
    if (turn.error) {
      const { status, message, retry_after_s } = turn.error;
      throw ModelError.fromStatus(
        status,
        `${status} ${message ?? 'scripted error'}`,
        retry_after_s === undefined ? undefined : retry_after_s * 1000,
      );
    }
    const chunk = Math.max(1, turn.chunk_size ?? 16);
    const delay = turn.delay_ms ?? 0;
    const inputTokens =
      turn.usage?.input_tokens ?? Math.max(1, Math.ceil((this.#sent.of(request.messages) + request.system.length) / 4));
    const blocks = blocksOf(turn);
    const outputText = blocks
      .map((b) => (b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : JSON.stringify(b.input)))
      .join('');
    const outputTokens = turn.usage?.output_tokens ?? (outputText ? estimateTokens(outputText) : 0);
    const usage = { ...turn.usage, input_tokens: inputTokens };

    yield {
      type: 'message_start',
      message: apiMessage({
        id: newApiId('msg'),
        model: turn.model ?? request.model,
        content: [],
        usage: apiUsage({ ...usage, output_tokens: 0 }),
      }),
    };
    let index = 0;
    for (const block of blocks) {
      const start: AssistantContentBlock =
        block.type === 'text'
          ? { type: 'text', text: '', citations: null }
          : block.type === 'thinking'
            ? { type: 'thinking', thinking: '', signature: '' }
            : { type: 'tool_use', id: block.id, name: block.name, input: {} };
      yield { type: 'content_block_start', index, content_block: start };
      const body =
        block.type === 'text' ? block.text : block.type === 'thinking' ? block.thinking : JSON.stringify(block.input);
      for (let at = 0; at < body.length; at += chunk) {
        if (delay > 0) await sleep(delay, { signal });
        else signal.throwIfAborted();
        const piece = body.slice(at, at + chunk);
        const delta: ContentDelta =
          block.type === 'text'
            ? { type: 'text_delta', text: piece }
            : block.type === 'thinking'
              ? { type: 'thinking_delta', thinking: piece, estimated_tokens: null }
              : { type: 'input_json_delta', partial_json: piece };
        yield { type: 'content_block_delta', index, delta };
      }
      yield { type: 'content_block_stop', index };
      index++;
    }
    const stopReason = turn.stop_reason ?? (turn.tool_calls?.length ? 'tool_use' : 'end_turn');
    yield messageDelta(
      { stop_reason: stopReason },
      {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
      },
    );
    yield { type: 'message_stop' };
  }
}

function blocksOf(turn: ScriptTurn): AssistantContentBlock[] {
  const blocks: AssistantContentBlock[] = [];
  if (turn.thinking) blocks.push({ type: 'thinking', thinking: turn.thinking, signature: '' });
  if (turn.text) blocks.push({ type: 'text', text: turn.text, citations: null });
  for (const call of turn.tool_calls ?? []) {
    blocks.push({ type: 'tool_use', id: call.id ?? newApiId('toolu'), name: call.name, input: call.input ?? {} });
  }
  return blocks;
}
