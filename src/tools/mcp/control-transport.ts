/**
 * An MCP `Transport` over the control channel, for the official SDK's in-process servers:
 * every JSON-RPC message goes out as an `mcp_message` control request, and the answer's
 * `mcp_response` comes back as the server's message. The real MCP `Client` drives it.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Sends one `mcp_message` to the client and resolves with its response payload. */
export type McpMessageSender = (
  serverName: string,
  message: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

type Id = string | number;

export class ControlChannelTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #server: string;
  readonly #send: McpMessageSender;
  /** Control requests in flight, by JSON-RPC id (a `notifications/cancelled` aborts them). */
  readonly #inFlight = new Map<Id, AbortController>();
  #closed = false;

  constructor(serverName: string, send: McpMessageSender) {
    this.#server = serverName;
    this.#send = send;
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error(`MCP server "${this.#server}": the control channel is closed`);
    const m = message as Record<string, unknown>;
    if (m.method === 'notifications/cancelled') {
      const id = (m.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.#inFlight.get(id)?.abort(new Error('cancelled'));
    }
    const isRequest = typeof m.method === 'string' && m.id !== undefined;
    if (!isRequest) {
      // Notifications and answers: delivered, nothing to wait for.
      this.#send(this.#server, m, new AbortController().signal).catch((error: Error) => this.onerror?.(error));
      return;
    }
    const id = m.id as Id;
    const abort = new AbortController();
    this.#inFlight.set(id, abort);
    this.#send(this.#server, m, abort.signal)
      .then(
        (payload) => {
          const response = payload.mcp_response as JSONRPCMessage | undefined;
          if (response && typeof response === 'object') this.#deliver(response);
          else this.#deliver(errorResponse(id, `the client answered mcp_message without an mcp_response`));
        },
        (error: Error) => {
          if (!abort.signal.aborted) this.#deliver(errorResponse(id, error.message));
        },
      )
      .finally(() => this.#inFlight.delete(id));
  }

  /**
   * A message the in-process server sent on its own (a client's inbound `mcp_message`): a notification, or a request to
   * agentpipe.
   */
  receive(message: JSONRPCMessage): void {
    if (this.#closed) throw new Error(`MCP server "${this.#server}": the control channel is closed`);
    this.#deliver(message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const abort of this.#inFlight.values()) abort.abort(new Error('closed'));
    this.#inFlight.clear();
    this.onclose?.();
  }

  #deliver(message: JSONRPCMessage): void {
    if (!this.#closed) this.onmessage?.(message);
  }
}

function errorResponse(id: Id, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: -32603, message } } as JSONRPCMessage;
}
