/**
 * `agentpipe app-server`: Codex's app-server protocol (JSON-RPC, v2 methods) over any number of
 * connections (one on stdio, one per WebSocket). Threads belong to the server: a connection that
 * starts or resumes one is subscribed to its notifications; the approvals of a turn go to the
 * connection that started it (another subscriber when it left). A connection must `initialize`
 * first; every method agentpipe does not serve answers -32601 with its name; each connection's
 * requests wait in a bounded queue (-32001 when full, as codex).
 */
import type { QueryOptions } from '../../sdk/types.ts';
import { JsonRpcPeer, RpcError, type RequestId, type RpcTrace } from '../../messages/json-rpc.ts';
import type { ConfigOverride } from '../config-overrides.ts';
import { InitializeParams, parseParams } from './params.ts';
import type { CodexThread, ThreadClients } from './thread.ts';
import { METHODS } from './methods.ts';

/** How the server runs its sessions. */
export interface AppServerOptions {
  /** The session options every thread starts from (the CLI's model and session flags). */
  base: QueryOptions;
  /** `-c key=value` overrides of the command line (under each thread's `config`). */
  config: ConfigOverride[];
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** Requests a connection may queue before -32001 (AGENTPIPE_APP_SERVER_QUEUE, default 128). */
  queueLimit?: number;
}

/** One client connection. */
export class Connection {
  readonly peer: JsonRpcPeer;
  initialized = false;
  clientName: string | null = null;
  readonly optOut = new Set<string>();

  constructor(peer: JsonRpcPeer) {
    this.peer = peer;
  }
}

export class AppServer implements ThreadClients {
  readonly options: AppServerOptions;
  readonly threads = new Map<string, CodexThread>();
  readonly #subscribers = new Map<string, Set<Connection>>();
  readonly #owners = new Map<string, Connection>();
  readonly #connections = new Set<Connection>();

  constructor(options: AppServerOptions) {
    this.options = options;
  }

  readonly log = (line: string): void => this.options.log(line);

  /** A new connection; `send` writes one frame to it (awaited: backpressure). */
  connect(send: (frame: Record<string, unknown>) => Promise<void>): Connection {
    const box: { connection?: Connection } = {};
    const peer = new JsonRpcPeer({
      send,
      queueLimit: this.options.queueLimit,
      log: this.log,
      onRequest: (method, params, context) => this.#request(box.connection!, method, params, context.id, context.trace),
      onNotification: (method) => {
        if (method === 'initialized' && box.connection) box.connection.initialized = true;
      },
    });
    const connection = (box.connection = new Connection(peer));
    this.#connections.add(connection);
    return connection;
  }

  /** The connection went away: it is unsubscribed; its turns ask another subscriber from now on. */
  disconnect(connection: Connection): void {
    connection.peer.close();
    this.#connections.delete(connection);
    for (const set of this.#subscribers.values()) set.delete(connection);
    for (const [threadId, owner] of this.#owners) if (owner === connection) this.#owners.delete(threadId);
  }

  /** Stops every thread. */
  async close(): Promise<void> {
    for (const connection of [...this.#connections]) this.disconnect(connection);
    await Promise.all([...this.threads.values()].map((t) => t.close()));
    this.threads.clear();
  }

  subscribe(threadId: string, connection: Connection): void {
    let set = this.#subscribers.get(threadId);
    if (!set) this.#subscribers.set(threadId, (set = new Set()));
    set.add(connection);
  }

  /** The connection that started the running turn answers its approvals. */
  own(threadId: string, connection: Connection): void {
    this.#owners.set(threadId, connection);
  }

  readonly notify = async (threadId: string, method: string, params: Record<string, unknown>): Promise<void> => {
    for (const c of this.#subscribers.get(threadId) ?? []) await this.sendTo(c, method, params);
  };

  /** A notification to one connection (unless it opted out of the method). */
  async sendTo(connection: Connection, method: string, params: Record<string, unknown>): Promise<void> {
    if (connection.optOut.has(method) || !connection.peer.isOpen) return;
    await connection.peer.notify(method, params).catch((error: Error) => this.log(`app-server: ${error.message}`));
  }

  readonly request = (
    threadId: string,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): { id: RequestId; answer: Promise<unknown> } => {
    const owner = this.#owners.get(threadId);
    const target = owner?.peer.isOpen ? owner : [...(this.#subscribers.get(threadId) ?? [])].find((c) => c.peer.isOpen);
    if (!target) return { id: -1, answer: Promise.reject(new Error('no client is connected to answer the request')) };
    return target.peer.startRequest(method, params, signal);
  };

  async #request(
    connection: Connection,
    method: string,
    params: unknown,
    id: RequestId,
    trace: RpcTrace | undefined,
  ): Promise<unknown> {
    if (method === 'initialize') {
      if (connection.initialized || connection.clientName !== null)
        throw RpcError.invalidRequest('Already initialized');
      const p = parseParams(InitializeParams, params, method);
      connection.clientName = p.clientInfo.name;
      for (const name of p.capabilities?.optOutNotificationMethods ?? []) connection.optOut.add(name);
      return METHODS.initialize!(this, connection, p, id);
    }
    if (connection.clientName === null) throw RpcError.invalidRequest('Not initialized');
    const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (!handler) throw RpcError.methodNotFound(method);
    return handler(this, connection, params, id, trace);
  }
}
