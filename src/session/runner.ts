/**
 * The session runner: reads input messages (user prompts, control requests and responses),
 * runs prompts one after another, answers control requests, and sends requests of its own
 * (can_use_tool, hook_callback, mcp_message) to the client, each with a timeout. Input EOF does
 * not cancel queued or running prompts: they finish, their results are emitted, then the output
 * closes; requests still waiting for the client are refused at EOF (nobody can answer them).
 */
import { AgentpipeError, errorMessage } from '../process/errors.ts';
import Denque from 'denque';
import { envMs } from '../process/env-number.ts';
import type {
  ControlRequest,
  ControlResponse,
  InputMessage,
  InputUserMessage,
  OutboundRequest,
} from '../messages/control.ts';
import type { ParsedLine, RefusedInput } from '../messages/parse.ts';
import type { AgentMessage, ResultMessage } from '../messages/types.ts';
import { promptEcho } from '../messages/user.ts';
import type { OutputLine } from '../pipeline/format/types.ts';
import type { Session } from './session.ts';
import { handleControlRequest, prepareControlHandlers, type ControlHost } from './control.ts';
import { setupErrorResult } from './error-result.ts';

/** A user message that was refused (malformed, too large, too deep): its turn in the queue ends in an error result. */
interface RefusedPrompt {
  type: 'refused';
  error: string;
  uuid?: string;
}

/** Options of a runner. */
export interface RunnerOptions {
  /**
   * Forward the client's control responses back, as Claude Code does with `--replay-user-messages` (the echoes of user
   * messages are filtered where the session's stream is sent: openSession).
   */
  replayUserMessages?: boolean;
  /** User message uuids already processed (from a resumed transcript): not run again. */
  seenUuids?: Iterable<string>;
  /** Diagnostics (stderr). */
  log: (line: string) => void;
  /**
   * Hold user messages until `initialize` was handled (`--await-initialize`); run them anyway when the input ends
   * without it.
   */
  awaitInitialize?: boolean;
  /**
   * How long a request to the client (can_use_tool, hook_callback, mcp_message) waits for its answer (default:
   * AGENTPIPE_CONTROL_TIMEOUT_MS or 10 minutes).
   */
  controlTimeoutMs?: number;
}

/** AGENTPIPE_CONTROL_TIMEOUT_MS, or 10 minutes. */
function controlTimeoutFromEnv(): number {
  return envMs('AGENTPIPE_CONTROL_TIMEOUT_MS', 600_000);
}

/** Error of a control request the client answered with `error`, or that was cancelled. */
export class ControlRequestError extends AgentpipeError {
  static override readonly errorName: string = 'ControlRequestError';
}

export class SessionRunner implements ControlHost {
  readonly session: Session;
  readonly #send: (line: OutputLine) => Promise<void> | undefined;
  readonly #options: RunnerOptions;
  /** A deque: a burst of queued prompts costs linear time (`Array#shift` copies a large array). */
  readonly #prompts = new Denque<InputUserMessage | RefusedPrompt>();
  readonly #seen = new Set<string>();
  readonly #pending = new Map<
    string,
    { subtype: string; resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  /** Inbound requests being answered, by id: `control_cancel_request` aborts their handler. */
  readonly #inbound = new Map<string, AbortController>();
  readonly #answering = new Set<Promise<void>>();
  /**
   * The send of an answer that waits for room in the output: the reader reads no further input until it resolves, so
   * a client that sends requests faster than it reads the answers holds a bounded number of them (backpressure).
   */
  #outputFull?: Promise<void>;
  #wake?: () => void;
  #inputEnded = false;
  #stopped = false;
  #nextRequest = 0;
  #lastResult?: ResultMessage;
  #initialized = false;

  constructor(session: Session, send: (line: OutputLine) => Promise<void> | undefined, options: RunnerOptions) {
    this.session = session;
    this.#send = send;
    this.#options = options;
    for (const uuid of options.seenUuids ?? []) this.#seen.add(uuid);
  }

  /** True once the client's `initialize` was handled (set by its handler); held prompts then start. */
  get initialized(): boolean {
    return this.#initialized;
  }

  set initialized(value: boolean) {
    this.#initialized = value;
    if (value) this.#wake?.();
  }

  /** The last result emitted. */
  get lastResult(): ResultMessage | undefined {
    return this.#lastResult;
  }

  /** Runs until the input ended and every queued prompt finished. */
  async run(input: AsyncIterable<ParsedLine>): Promise<void> {
    const reading = this.#read(input);
    try {
      for (;;) {
        const held = this.#options.awaitInitialize && !this.#initialized && !this.#inputEnded;
        const prompt = held || this.#stopped ? undefined : this.#prompts.shift();
        if (prompt?.type === 'refused') {
          this.#lastResult = setupErrorResult(prompt.error, this.session.id);
          await this.emit(this.#lastResult);
          continue;
        }
        if (prompt) {
          // The prompt of a turn the transcript was cut in (a cluster takeover) goes on where it was.
          const cut = prompt.uuid !== undefined && prompt.uuid === this.session.cutTurn?.promptUuid;
          this.#lastResult = cut
            ? await this.session.continueCutTurn(undefined, prompt)
            : await this.session.runPrompt(prompt);
          continue;
        }
        if (this.#inputEnded || this.#stopped) break;
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
      }
    } finally {
      this.#rejectPending('the session ended');
    }
    if (!this.#stopped) await reading; // stopped by a signal: the client may keep its input open
    await Promise.allSettled([...this.#answering]);
  }

  async #read(input: AsyncIterable<ParsedLine>): Promise<void> {
    try {
      for await (const parsed of input) {
        while (this.#outputFull) {
          const full = this.#outputFull;
          await full;
          if (this.#outputFull === full) this.#outputFull = undefined;
        }
        if (!parsed.ok) {
          this.#options.log(`agentpipe: input ignored: ${parsed.error}`);
          if (parsed.refused) await this.#refuse(parsed.refused, parsed.error);
          continue;
        }
        await this.#dispatch(parsed.message);
      }
    } catch (error) {
      this.#options.log(`agentpipe: input failed: ${errorMessage(error)}`);
    } finally {
      if (this.#options.awaitInitialize && !this.#initialized && this.#prompts.length) {
        this.#options.log(
          'agentpipe: warning: the input ended without an initialize request; running the held user messages anyway',
        );
      }
      this.#inputEnded = true;
      // Nobody can answer a request any more: a permission prompt waiting now would wait forever.
      // Its tool is denied, and the prompt ends with its result.
      this.#rejectPending('the input closed before the client answered');
      this.#wake?.();
    }
  }

  /**
   * Answers a refused line whose client would otherwise wait: a user message gets an error result in its turn, a
   * control request an error response, and a refused answer fails the request it answered.
   */
  async #refuse(refused: RefusedInput, error: string): Promise<void> {
    const why = `input refused: ${error}`;
    if (refused.type === 'user') {
      if (this.#stopped) return;
      this.#prompts.push({ type: 'refused', error: why, uuid: refused.uuid });
      this.#wake?.();
    } else if (refused.type === 'control_request') {
      await this.#send({
        type: 'control_response',
        response: { subtype: 'error', request_id: refused.request_id, error: why },
      });
    } else {
      const pending = this.#pending.get(refused.request_id);
      this.#pending.delete(refused.request_id);
      pending?.reject(
        new ControlRequestError(`the answer to control request ${refused.request_id} was refused: ${error}`),
      );
    }
  }

  #rejectPending(why: string): void {
    for (const [id, pending] of this.#pending) {
      this.#options.log(`agentpipe: control request ${id} (${pending.subtype}) was not answered: ${why}`);
      pending.reject(new ControlRequestError(`control request ${id} was not answered: ${why}`));
    }
    this.#pending.clear();
  }

  async #dispatch(message: InputMessage): Promise<void> {
    switch (message.type) {
      case 'user':
        return this.#enqueuePrompt(message);
      case 'control_request': {
        // Answered concurrently: a handler may wait on the client (MCP servers over mcp_message).
        await prepareControlHandlers();
        const answering = this.#answer(message).finally(() => this.#answering.delete(answering));
        this.#answering.add(answering);
        return;
      }
      case 'control_response': {
        // Claude Code forwards the client's control responses when replaying.
        if (this.#options.replayUserMessages) await this.#send(message);
        const pending = this.#pending.get(message.response.request_id);
        if (!pending)
          return this.#options.log(
            `agentpipe: control_response for unknown request ${message.response.request_id} ignored`,
          );
        this.#pending.delete(message.response.request_id);
        if (message.response.subtype === 'success') pending.resolve(message.response.response ?? {});
        else pending.reject(new ControlRequestError(message.response.error));
        return;
      }
      case 'control_cancel_request': {
        const pending = this.#pending.get(message.request_id);
        if (pending) {
          this.#pending.delete(message.request_id);
          pending.reject(new ControlRequestError(`control request ${message.request_id} was cancelled by the client`));
        }
        this.#inbound
          .get(message.request_id)
          ?.abort(new ControlRequestError(`control request ${message.request_id} was cancelled by the client`));
        return;
      }
      case 'keep_alive':
        return;
    }
  }

  async #enqueuePrompt(message: InputUserMessage): Promise<void> {
    const uuid = message.uuid;
    const duplicate = uuid !== undefined && this.#seen.has(uuid) && uuid !== this.session.cutTurn?.promptUuid;
    if (uuid !== undefined) this.#seen.add(uuid);
    if (duplicate) {
      // Not run again, so the session never echoes it: echoed here, when it is read (as Claude Code does).
      await this.emit(promptEcho(message, this.session.id, uuid));
      return this.#options.log(`agentpipe: user message ${uuid} was already processed; not run again`);
    }
    if (this.#stopped) return this.#options.log('agentpipe: user message ignored: the session is stopping');
    // `priority: "now"` joins the running prompt when its wrapped agent can steer (codex); otherwise it waits its turn.
    if (message.priority === 'now' && !this.#prompts.length && (await this.session.steer(message))) return;
    this.#prompts.push(message);
    this.#wake?.();
  }

  async #answer(request: ControlRequest): Promise<void> {
    this.session.ctx.debug?.('control', `request ${request.request.subtype} (${request.request_id})`);
    let response: ControlResponse;
    const abort = new AbortController();
    this.#inbound.set(request.request_id, abort);
    try {
      const payload = await handleControlRequest(this, request.request, abort.signal);
      response = {
        type: 'control_response',
        response: { subtype: 'success', request_id: request.request_id, ...(payload ? { response: payload } : {}) },
      };
    } catch (error) {
      response = {
        type: 'control_response',
        response: { subtype: 'error', request_id: request.request_id, error: errorMessage(error) },
      };
    } finally {
      this.#inbound.delete(request.request_id);
    }
    if (response.response.subtype === 'error')
      this.session.ctx.debug?.(
        'control',
        `request ${request.request.subtype} (${request.request_id}) failed: ${response.response.error}`,
      );
    const sending = this.#send(response);
    if (sending) await (this.#outputFull = sending);
  }

  /** Sends a message of the conversation (through the session's one emit). */
  emit(message: AgentMessage): Promise<void> | undefined {
    return this.session.emit(message);
  }

  /** Sends a control request to the client and waits for its answer (or the signal). */
  request(request: OutboundRequest, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.#inputEnded)
      return Promise.reject(new ControlRequestError(`cannot send ${request.subtype}: the client's input is closed`));
    const requestId = `agentpipe_req_${++this.#nextRequest}`;
    const timeoutMs = this.#options.controlTimeoutMs ?? controlTimeoutFromEnv();
    return new Promise((resolve, reject) => {
      // Abandoned (aborted, or unanswered in time): the client is told to stop asking.
      const abandon = (error: unknown) => {
        if (!this.#pending.delete(requestId)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        void this.#send({ type: 'control_cancel_request', request_id: requestId });
        reject(error);
      };
      const onAbort = () => abandon(signal?.reason ?? new ControlRequestError('cancelled'));
      const timer = setTimeout(() => {
        this.#options.log(
          `agentpipe: control request ${requestId} (${request.subtype}) was not answered within ${timeoutMs} ` +
            `ms; cancelled (AGENTPIPE_CONTROL_TIMEOUT_MS)`,
        );
        abandon(new ControlRequestError(`control request ${request.subtype} was not answered within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      this.#pending.set(requestId, {
        subtype: request.subtype,
        resolve: (value) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.session.ctx.debug?.('control', `sent ${request.subtype} (${requestId})`);
      void this.#send({ type: 'control_request', request_id: requestId, request });
    });
  }

  /**
   * Ends the session early (a signal): queued prompts are dropped (they never started, so they
   * owe no result), no new ones start, waiting requests are refused; the running prompt ends
   * with its result once interrupted.
   */
  stop(why: string): void {
    if (this.#prompts.length) this.#options.log(`agentpipe: ${this.#prompts.length} queued prompt(s) dropped: ${why}`);
    this.#prompts.clear();
    this.#stopped = true;
    this.#rejectPending(why);
    this.#wake?.();
  }

  /** The uuids of the prompts still waiting (an interrupt's receipt). */
  get queuedUuids(): string[] {
    return this.#prompts.toArray().flatMap((p) => (p.uuid && p.type !== 'refused' ? [p.uuid] : []));
  }

  /** Drops the queued prompt with this uuid; false when none waits (`cancel_async_message`). */
  cancelQueued(uuid: string): boolean {
    const at = this.#prompts.toArray().findIndex((p) => p.type !== 'refused' && p.uuid === uuid);
    if (at < 0) return false;
    this.#prompts.removeOne(at);
    return true;
  }

  /** Number of prompts waiting behind the running one. */
  get queuedPrompts(): number {
    return this.#prompts.length;
  }
}
