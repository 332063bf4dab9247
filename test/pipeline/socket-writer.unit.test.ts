import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { socketWriter, type SendingSocket } from '../../src/pipeline/socket-writer.ts';

/** A socket that buffers `bufferedAmount` bytes and calls back each send when `flush` is called. */
function fakeSocket(bufferedAmount: number) {
  const pending: Array<() => void> = [];
  const sent: string[] = [];
  const socket: SendingSocket & { readyState: number } = {
    readyState: 1,
    OPEN: 1,
    bufferedAmount,
    send(data, callback) {
      sent.push(data);
      if (callback) pending.push(() => callback());
    },
  };
  return { socket, sent, flush: () => pending.splice(0).forEach((call) => call()) };
}

test('a client behind waits per line; the waits leave no listener on the close signal', async () => {
  const { socket, sent, flush } = fakeSocket(2048);
  const closed = new AbortController();
  const write = socketWriter(socket, closed.signal, 1024);
  for (let i = 0; i < 50; i++) {
    const wrote = write(`line ${i}\n`);
    flush();
    await wrote;
  }
  assert.equal(sent.length, 50);
  assert.equal(getEventListeners(closed.signal, 'abort').length, 0);
});

test('a wait ends when the connection closes; nothing is sent once it is closed', async () => {
  const { socket, sent } = fakeSocket(2048);
  const closed = new AbortController();
  const write = socketWriter(socket, closed.signal, 1024);
  const waiting = write('behind\n');
  closed.abort();
  await waiting;
  assert.equal(getEventListeners(closed.signal, 'abort').length, 0);
  socket.readyState = 3;
  await write('after close\n');
  assert.deepEqual(sent, ['behind\n']);
});

test('under the high-water mark a line is sent at once, with no wait', async () => {
  const { socket, sent } = fakeSocket(0);
  const closed = new AbortController();
  await socketWriter(socket, closed.signal, 1024)('now\n');
  assert.deepEqual(sent, ['now\n']);
  assert.equal(getEventListeners(closed.signal, 'abort').length, 0);
});
