/**
 * JSON-RPC 2.0 as Codex's app-server frames it (one JSON object per line or WebSocket frame, the
 * `"jsonrpc"` member left out, as codex leaves it out, and accepted when present), and one peer
 * for both sides of it: `agentpipe app-server` (the server) and the Codex harness (a client of
 * `codex app-server`). A peer answers the other side's requests one at a time, in order, from a
 * bounded queue: a request that finds it full is answered at once with -32001 (codex's "Server
 * overloaded"), so a client that floods is told to retry instead of growing memory. A line that is
 * not JSON, or a message without a usable id, cannot be answered (codex's frames have no
 * `id: null`): it is logged, as codex logs it. Answers to its
 * own requests are never queued. Closing the peer aborts the handler running, refuses what is
 * queued and rejects its own requests still waiting.
 */
import { AgentpipeError, errorMessage } from '../process/errors.ts';
import { isRecord } from '../process/guards.ts';

/** A request id. */
export type RequestId = string | number;

/** The error codes the peer sends. */
export const RPC_ERROR = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  overloaded: -32001,
} as const;

/** A JSON-RPC error, thrown by handlers and sent as the response's `error`. */
export class RpcError extends AgentpipeError {
  static override readonly errorName: string = 'RpcError';
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    if (data !== undefined) this.data = data;
  }

  static methodNotFound(method: string): RpcError {
    return new RpcError(RPC_ERROR.methodNotFound, `Method not found: ${method}`, { method });
  }

  static invalidParams(message: string): RpcError {
    return new RpcError(RPC_ERROR.invalidParams, message);
  }

  static invalidRequest(message: string): RpcError {
    return new RpcError(RPC_ERROR.invalidRequest, message);
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return { code: this.code, message: this.message, ...(this.data !== undefined ? { data: this.data } : {}) };
  }
}

/**
 * A W3C trace context on a request's envelope (`trace: { traceparent, tracestate }`), as Codex's app-server takes it:
 * transport-level, whatever the method.
 */
export interface RpcTrace {
  traceparent: string;
  tracestate?: string;
}

/** One frame, classified. */
export type RpcFrame =
  | { kind: 'request'; id: RequestId; method: string; params: unknown; trace?: RpcTrace }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response'; id: RequestId; result: unknown }
  | { kind: 'error'; id: RequestId | null; error: { code: number; message: string; data?: unknown } }
  | { kind: 'invalid'; id: RequestId | null; reason: string };

const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** An envelope's trace carrier, when it has the shape of one (the telemetry checks the traceparent itself). */
function traceOf(value: unknown): RpcTrace | undefined {
  if (!isRecord(value) || typeof value.traceparent !== 'string' || value.traceparent.length > 128) return undefined;
  const state = typeof value.tracestate === 'string' && value.tracestate.length <= 512 ? value.tracestate : undefined;
  return { traceparent: value.traceparent, ...(state ? { tracestate: state } : {}) };
}

/** Classifies a parsed frame. */
export function classifyFrame(value: unknown): RpcFrame {
  if (!isRecord(value)) return { kind: 'invalid', id: null, reason: 'a JSON-RPC message must be an object' };
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== undefined && value.jsonrpc !== '2.0')
    return { kind: 'invalid', id, reason: 'unsupported "jsonrpc" version' };
  if (typeof value.method === 'string') {
    if (value.id === undefined) return { kind: 'notification', method: value.method, params: value.params };
    if (id === null) return { kind: 'invalid', id: null, reason: '"id" must be a string or an integer' };
    const trace = traceOf(value.trace);
    return { kind: 'request', id, method: value.method, params: value.params, ...(trace ? { trace } : {}) };
  }
  if (id !== null && 'result' in value) return { kind: 'response', id, result: value.result };
  if ('error' in value && isRecord(value.error) && typeof value.error.code === 'number')
    return {
      kind: 'error',
      id,
      error: {
        code: value.error.code,
        message: typeof value.error.message === 'string' ? value.error.message : '',
        data: value.error.data,
      },
    };
  return { kind: 'invalid', id, reason: 'neither a request, a notification nor a response' };
}

/** What a peer needs from its side of the connection. */
export interface PeerOptions {
  /** Writes one frame; resolves when the transport can take more (backpressure). */
  send: (frame: Record<string, unknown>) => Promise<void>;
  /** Answers a request of the other side; throw an RpcError to answer with an error. */
  onRequest: (
    method: string,
    params: unknown,
    context: { id: RequestId; signal: AbortSignal; trace?: RpcTrace },
  ) => Promise<unknown>;
  /** A notification of the other side. */
  onNotification?: (method: string, params: unknown) => void | Promise<void>;
  /** Requests waiting to be handled before -32001 (default 128, as codex's channel). */
  queueLimit?: number;
  /** Diagnostics. */
  log?: (line: string) => void;
}

type Incoming =
  | { kind: 'request'; id: RequestId; method: string; params: unknown; trace?: RpcTrace }
  | { kind: 'notification'; method: string; params: unknown };

/** The peer's states: `open` until `close()`, then `closed` for good. */
type PeerStatus = 'open' | 'closed';

/** A JSON-RPC peer (see the module comment). */
export class JsonRpcPeer {
  readonly #o: PeerOptions;
  readonly #limit: number;
  readonly #queue: Incoming[] = [];
  readonly #pending = new Map<RequestId, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #status: PeerStatus = 'open';
  #pumping = false;
  #running?: AbortController;
  #nextId = 0;
  #closedResolve!: () => void;
  /** Resolves once the peer closed. */
  readonly closed = new Promise<void>((resolve) => (this.#closedResolve = resolve));

  constructor(options: PeerOptions) {
    this.#o = options;
    this.#limit = options.queueLimit ?? 128;
  }

  get isOpen(): boolean {
    return this.#status === 'open';
  }

  /** Takes one frame of the other side (already parsed JSON, or the text that was not JSON). */
  receive(value: unknown, notJson?: string): void {
    if (this.#status !== 'open') return;
    // A frame without a usable id cannot be answered (codex's schema has no `id: null`): it is logged, as codex does.
    if (notJson !== undefined) return this.#o.log?.(`json-rpc: a line that is not JSON was ignored (${notJson})`);
    const frame = classifyFrame(value);
    switch (frame.kind) {
      case 'invalid':
        if (frame.id === null) return this.#o.log?.(`json-rpc: an invalid message was ignored (${frame.reason})`);
        this.#reply({
          id: frame.id,
          error: { code: RPC_ERROR.invalidRequest, message: `Invalid request: ${frame.reason}` },
        });
        return;
      case 'response':
      case 'error': {
        const pending = frame.id === null ? undefined : this.#pending.get(frame.id);
        if (!pending)
          return this.#o.log?.(`json-rpc: a response to an unknown request ${String(frame.id)} was ignored`);
        this.#pending.delete(frame.id!);
        if (frame.kind === 'response') pending.resolve(frame.result);
        else pending.reject(new RpcError(frame.error.code, frame.error.message, frame.error.data));
        return;
      }
      case 'request':
        if (this.#queue.filter((q) => q.kind === 'request').length >= this.#limit) {
          this.#reply({
            id: frame.id,
            error: { code: RPC_ERROR.overloaded, message: 'Server overloaded; retry later.' },
          });
          return;
        }
        this.#queue.push(frame);
        break;
      case 'notification':
        this.#queue.push(frame);
        break;
    }
    void this.#pump();
  }

  /**
   * Refuses a frame that arrived but may not be used (nested too deep, over the size limit): a request gets an
   * invalid-request error with its id, an answer fails the request of ours it answers, anything else is logged.
   */
  refuse(frame: { id: RequestId | null; request: boolean }, reason: string): void {
    if (this.#status !== 'open') return;
    this.#o.log?.(`json-rpc: input refused: ${reason}`);
    if (frame.id === null) return;
    if (frame.request) {
      this.#reply({ id: frame.id, error: { code: RPC_ERROR.invalidRequest, message: `Invalid request: ${reason}` } });
      return;
    }
    const pending = this.#pending.get(frame.id);
    this.#pending.delete(frame.id);
    pending?.reject(new RpcError(RPC_ERROR.invalidRequest, `the answer was refused: ${reason}`));
  }

  /** Sends a request to the other side and waits for its answer (rejects with its error, or when closed). */
  request(method: string, params: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.startRequest(method, params, signal).answer;
  }

  /** Sends a request; its id at once, its answer when it comes (for notifications that name the request). */
  startRequest(method: string, params: unknown, signal?: AbortSignal): { id: RequestId; answer: Promise<unknown> } {
    const id = this.#nextId++;
    if (this.#status !== 'open')
      return { id, answer: Promise.reject(new RpcError(RPC_ERROR.internal, 'the connection is closed')) };
    const answer = new Promise<unknown>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    const onAbort = () => {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      pending?.reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const sent = this.#o.send({ id, method, ...(params !== undefined ? { params } : {}) });
    const settled = Promise.all([sent, answer]).then(([, value]) => value);
    // The caller awaits `settled`; this chain only removes the listener.
    void settled.finally(() => signal?.removeEventListener('abort', onAbort)).catch(() => {});
    return { id, answer: settled };
  }

  /** Sends a notification. */
  async notify(method: string, params: unknown): Promise<void> {
    if (this.#status !== 'open') return;
    await this.#o.send({ method, ...(params !== undefined ? { params } : {}) });
  }

  /** Closes the peer: the running handler is aborted, queued requests and own pending requests are refused. */
  close(reason = 'the connection closed'): void {
    if (this.#status === 'closed') return;
    this.#status = 'closed';
    this.#running?.abort(new Error(reason));
    this.#queue.length = 0;
    for (const pending of this.#pending.values()) pending.reject(new RpcError(RPC_ERROR.internal, reason));
    this.#pending.clear();
    this.#closedResolve();
  }

  #reply(frame: Record<string, unknown>): void {
    if (this.#status !== 'open') return;
    this.#o.send(frame).catch((error: unknown) => this.#o.log?.(`json-rpc: send failed: ${errorMessage(error)}`));
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (let next = this.#queue.shift(); next && this.#status === 'open'; next = this.#queue.shift()) {
        if (next.kind === 'notification') await this.#notification(next.method, next.params);
        else await this.#handle(next);
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #notification(method: string, params: unknown): Promise<void> {
    try {
      await this.#o.onNotification?.(method, params);
    } catch (error) {
      this.#o.log?.(`json-rpc: notification ${method} failed: ${errorMessage(error)}`);
    }
  }

  async #handle({ id, method, params, trace }: Extract<Incoming, { kind: 'request' }>): Promise<void> {
    const abort = new AbortController();
    this.#running = abort;
    let frame: Record<string, unknown>;
    try {
      const result = await this.#o.onRequest(method, params, { id, signal: abort.signal, ...(trace ? { trace } : {}) });
      frame = { id, result: result ?? {} };
    } catch (error) {
      const rpc = RpcError.isInstance(error)
        ? error
        : new RpcError(RPC_ERROR.internal, `Internal error: ${errorMessage(error)}`);
      frame = { id, error: rpc.toJSON() };
    } finally {
      this.#running = undefined;
    }
    if (this.#status !== 'open') return;
    try {
      await this.#o.send(frame);
    } catch (error) {
      this.#o.log?.(`json-rpc: send failed: ${errorMessage(error)}`);
    }
  }
}
