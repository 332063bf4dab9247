/**
 * The backpressured writer of a WebSocket connection's lines (`serve`, `serve --redis`): a line is
 * sent at once while the socket buffers less than `highWaterBytes`; past that, the caller waits
 * until the socket took the line (or closed), so one slow client holds back only its own session.
 */

/** What a WebSocket (`ws`) offers the writer. */
export interface SendingSocket {
  readonly readyState: number;
  readonly OPEN: number;
  readonly bufferedAmount: number;
  send(data: string, callback?: (error?: Error) => void): void;
}

/** A write function for `ws`: resolves at once, or once a behind client's socket took the text; no-op once closed. */
export function socketWriter(
  ws: SendingSocket,
  closed: AbortSignal,
  highWaterBytes = 1024 * 1024,
): (text: string) => Promise<void> {
  return (text) => {
    if (ws.readyState !== ws.OPEN) return Promise.resolve();
    if (ws.bufferedAmount < highWaterBytes) {
      ws.send(text);
      return Promise.resolve();
    }
    // This client is behind: wait until its socket took the line, or closed. The abort listener goes with the wait:
    // one left per line would pile up on `closed` for as long as the client stays behind.
    return new Promise((resolve) => {
      const done = (): void => {
        closed.removeEventListener('abort', done);
        resolve();
      };
      closed.addEventListener('abort', done, { once: true });
      ws.send(text, done);
    });
  };
}
