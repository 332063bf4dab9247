/**
 * A run's input: first the catch-up of a run that takes a session over (the state-setting
 * requests the old owner had handled, then the prompt whose turn was cut, which goes on, then the
 * prompts it had taken from the inbox but not started), then the inbox after the cursor, as it
 * comes. Each line the runner took moves the cursor (fenced; the entries no owner needs are
 * trimmed). User messages without a uuid get a stable one (so a new owner recognises them); an
 * answer to a request of an earlier owner (its tag is not this run's) answers nothing here.
 */
import { createHash } from 'node:crypto';
import type { ParsedLine } from '../../messages/parse.ts';
import { parseInputLine } from '../../messages/parse.ts';
import { compareStreamIds, START_ID, type SessionLog } from '../log/index.ts';
import { retryRedis } from '../redis-retry.ts';
import { TAGGED_REQUEST } from './takeover.ts';

/** Control requests that set session state: handled again by a new owner, their answers kept out of the log. */
export const STATE_REQUESTS = new Set([
  'initialize',
  'set_permission_mode',
  'set_model',
  'set_max_thinking_tokens',
  'mcp_set_servers',
  'mcp_toggle',
]);

/**
 * The field a state-setting control request is kept under for a new owner (one per kind; per server for `mcp_toggle`).
 */
export function stateField(request: { subtype: string; serverName?: unknown }): string {
  return request.subtype === 'mcp_toggle' ? `mcp_toggle:${String(request.serverName)}` : request.subtype;
}

/** A stable uuid for a user message that came without one (so a new owner recognises it). */
export function inputUuid(sessionId: string, inputId: string): string {
  const h = createHash('sha1').update(`${sessionId}/${inputId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** What the input reads with. */
export interface InboxInputOptions {
  log: SessionLog;
  sessionId: string;
  token: string;
  /** This run's request tag. */
  tag: string;
  /** Prompts the log shows started (their prompt line is there): not run again. */
  seen: Set<string>;
  /** The cut prompt that goes on (a takeover), given after the state requests. */
  continued?: ParsedLine;
  /** Ids of the state requests handled again: their answers are kept out of the log. */
  silent: Set<string>;
  /** The worker is draining: no new prompt is taken (it stays in the inbox for the next owner). */
  draining: () => boolean;
  /** A failed cursor move is retried while this holds (the lease may still be held). */
  mayAct: () => boolean;
  signal: AbortSignal;
  /** Each inbox line as it comes (a warm session is claimed by its first). */
  onLine: () => void;
  /** A prompt was taken (a draining run ends when none is left running). */
  onPrompt: () => void;
}

export class InboxInput {
  readonly lines: AsyncGenerator<ParsedLine>;
  readonly #o: InboxInputOptions;
  readonly #ended = new AbortController();
  readonly #both: AbortSignal;
  /** Inbox entries of prompts taken but not started: a new owner would run them, so they stay in the inbox. */
  readonly #unstarted = new Map<string, string>();

  constructor(o: InboxInputOptions) {
    this.#o = o;
    this.#both = AbortSignal.any([o.signal, this.#ended.signal]);
    this.lines = prefetched(this.#read());
  }

  /** Ends the input (the run ends once its prompts are done). */
  end(): void {
    this.#ended.abort();
  }

  /** The prompt with this uuid started (its prompt line is in the log): its inbox entry is no longer needed. */
  started(uuid: string): void {
    this.#unstarted.delete(uuid);
  }

  async *#read(): AsyncGenerator<ParsedLine> {
    const { log, sessionId } = this.#o;
    const cursor = await log.cursor(sessionId);
    if (cursor !== START_ID || this.#o.continued) yield* this.#catchUp(cursor);
    for await (const entry of log.tailInput(sessionId, cursor, this.#both)) {
      this.#o.onLine();
      const parsed = this.#parse(entry.id, entry.line);
      if (!parsed) {
        await this.#setCursor(entry.id);
        return;
      }
      if (parsed.ok && parsed.message.type === 'user') {
        // A draining run takes no new prompt: it stays in the inbox for the next owner.
        if (this.#o.draining()) return;
        if (parsed.message.uuid) this.#unstarted.set(parsed.message.uuid, entry.id);
        this.#o.onPrompt();
      }
      yield parsed;
      // The runner took the line (queued a prompt, handled or started handling a request): a new owner goes on
      // after it.
      await this.#setCursor(entry.id, parsed);
    }
  }

  /** The state the old owner had set, the cut prompt that goes on, then the prompts it had taken but not started. */
  async *#catchUp(cursor: string): AsyncGenerator<ParsedLine> {
    const { log, sessionId } = this.#o;
    const state = [...(await log.stateRequests(sessionId)).entries()].sort(([a], [b]) =>
      a === 'initialize' ? -1 : b === 'initialize' ? 1 : 0,
    );
    for (const [, line] of state) {
      const parsed = parseInputLine(line);
      if (!parsed.ok || parsed.message.type !== 'control_request') continue;
      this.#o.silent.add(parsed.message.request_id);
      yield parsed;
    }
    if (this.#o.continued) {
      this.#o.onPrompt();
      yield this.#o.continued;
    }
    if (cursor === START_ID) return;
    for (const entry of await log.readInput(sessionId)) {
      if (compareStreamIds(entry.id, cursor) > 0) break;
      const parsed = this.#parse(entry.id, entry.line);
      if (!parsed?.ok) continue;
      const m = parsed.message;
      if (m.type === 'user' && m.uuid && !this.#o.seen.has(m.uuid)) {
        this.#unstarted.set(m.uuid, entry.id);
        this.#o.onPrompt();
        yield parsed;
      }
    }
  }

  /** Gives user messages a stable uuid and untags answers; undefined for the end of input. */
  #parse(entryId: string, line: string): ParsedLine | undefined {
    const parsed = parseInputLine(line);
    if (!parsed.ok) return /"end_input"/.test(line) ? undefined : parsed;
    if (parsed.message.type === 'user' && !parsed.message.uuid)
      parsed.message = { ...parsed.message, uuid: inputUuid(this.#o.sessionId, entryId) };
    if (parsed.message.type === 'control_response') {
      const tagged = TAGGED_REQUEST.exec(parsed.message.response.request_id);
      if (tagged)
        parsed.message = {
          ...parsed.message,
          // An answer to an earlier owner's request (cancelled): an id no request of this run has.
          response: { ...parsed.message.response, request_id: tagged[2] === this.#o.tag ? tagged[1]! : tagged[0] },
        };
    }
    return parsed;
  }

  /** The oldest inbox entry still needed: an unstarted prompt's, else this one (entries before it are trimmed). */
  #keepFrom(entryId: string): string {
    let oldest = entryId;
    for (const kept of this.#unstarted.values()) if (compareStreamIds(kept, oldest) < 0) oldest = kept;
    return oldest;
  }

  /**
   * Moves the cursor (trimming what no owner needs, keeping a state request for a new owner); a lost connection is
   * retried while the run may act (a FencedError ends the input: another worker owns the session).
   */
  async #setCursor(entryId: string, parsed?: ParsedLine): Promise<void> {
    const { log, sessionId, token } = this.#o;
    const m = parsed?.ok ? parsed.message : undefined;
    const state =
      m?.type === 'control_request' && STATE_REQUESTS.has(m.request.subtype)
        ? { field: stateField(m.request), line: JSON.stringify(m) }
        : undefined;
    await retryRedis(() => log.setCursor(sessionId, token, entryId, { keepFrom: this.#keepFrom(entryId), state }), {
      while: this.#o.mayAct,
      signal: this.#o.signal,
    });
  }
}

/**
 * Starts reading `lines` now (the inbox's cursor and first blocking read go on while the session opens); `return()` of
 * the result ends `lines` too.
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
