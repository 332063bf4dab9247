/**
 * Live sessions: the page speaks the plain stream-json protocol of `agentpipe serve` over a
 * WebSocket to the server that served it. A prompt starts a session (the connection) or goes
 * on in it, and shows when the server echoes it back; Stop sends an `interrupt` control request.
 */
import type { AgentMessage } from '../../src/messages/types.ts';
import { promptMessage } from '../../src/messages/user.ts';
import type { ViewStore } from './model/store.ts';

export type LiveState = 'idle' | 'connecting' | 'open' | 'closed';

export class LiveClient {
  state: LiveState = 'idle';
  #ws?: WebSocket;
  #requests = 0;
  #store: ViewStore;
  #onState: () => void;

  constructor(store: ViewStore, onState: () => void) {
    this.#store = store;
    this.#onState = onState;
  }

  #setState(state: LiveState): void {
    this.state = state;
    this.#onState();
  }

  #connect(): Promise<WebSocket> {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/${location.search}`;
    const ws = new WebSocket(url);
    this.#ws = ws;
    this.#setState('connecting');
    ws.onmessage = (event) => {
      for (const line of String(event.data).split('\n')) {
        if (!line.trim()) continue;
        let message: { type?: string };
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (
          message.type === 'keep_alive' ||
          message.type === 'control_response' ||
          message.type === 'control_request' ||
          message.type === 'control_cancel_request'
        )
          continue;
        this.#store.push(message as AgentMessage);
      }
    };
    ws.onclose = () => {
      if (this.#ws === ws) this.#setState('closed');
    };
    return new Promise((resolve, reject) => {
      ws.onopen = () => {
        this.#setState('open');
        resolve(ws);
      };
      ws.onerror = () => reject(new Error('could not connect to the agentpipe server'));
    });
  }

  async prompt(text: string): Promise<void> {
    const ws = this.#ws && this.#ws.readyState === WebSocket.OPEN ? this.#ws : await this.#connect();
    // The server echoes the prompt on the stream (serve --ui replays user messages): it is shown from there.
    this.#store.running = true;
    this.#store.changed();
    ws.send(`${JSON.stringify(promptMessage(text))}\n`);
  }

  interrupt(): void {
    if (this.#ws?.readyState !== WebSocket.OPEN) return;
    this.#ws.send(
      JSON.stringify({
        type: 'control_request',
        request_id: `view-${++this.#requests}`,
        request: { subtype: 'interrupt' },
      }) + '\n',
    );
  }

  /** Ends the session (its connection); the next prompt starts a new one. */
  close(): void {
    const ws = this.#ws;
    this.#ws = undefined;
    ws?.close();
    this.#setState('idle');
  }
}
