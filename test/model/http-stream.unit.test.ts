import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postForEvents, translatedBatches } from '../../src/model/http-stream.ts';

/** A server answering with `parts` as separate writes of one SSE body. */
async function serve(parts: Buffer[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const next = (i: number): void => {
        if (i === parts.length) return void res.end();
        res.write(parts[i], () => setImmediate(next, i + 1));
      };
      next(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function events(url: string): Promise<string[]> {
  const out: string[] = [];
  const signal = new AbortController().signal;
  for await (const batch of postForEvents({ url, headers: {}, body: {}, signal }))
    out.push(...batch.map((e) => e.data));
  return out;
}

test('a character whose bytes straddle a network read or a parsing piece arrives whole', async () => {
  const emoji = '😀é中';
  // The first event's data ends 1 byte into the emoji at byte 4096 (a parsing piece's end), in one write.
  const pad = 'x'.repeat(4096 - 'data: '.length - 1);
  const first = `data: ${pad}${emoji}\n\n`;
  const second = `data: second ${emoji}\n\n`;
  const body = Buffer.from(first + second);
  const at = body.indexOf(Buffer.from('second')) + 'second '.length + 2; // inside the second emoji
  const cases = [
    [body],
    [body.subarray(0, at), body.subarray(at)],
    [...body]
      .map((byte) => Buffer.from([byte]))
      .slice(0, 40)
      .concat([body.subarray(40)]),
  ];
  for (const parts of cases) {
    const server = await serve(parts);
    try {
      assert.deepEqual(await events(server.url), [`${pad}${emoji}`, `second ${emoji}`]);
    } finally {
      await server.close();
    }
  }
});

test('translatedBatches: one batch per read; a throw lets out what came before it; a complete answer stops the reads', async () => {
  const message = (data: string) => ({ id: undefined, event: undefined, data });
  let returned = false;
  async function* reads() {
    try {
      yield [message('a'), message('b')];
      yield [message('c'), message('stop'), message('never')];
      yield [message('never')];
    } finally {
      returned = true;
    }
  }
  const translate = (m: { data: string }, out: string[]): boolean => {
    if (m.data === 'bad') throw new Error('bad event');
    if (m.data === 'never') assert.fail('read after the end');
    out.push(m.data);
    return m.data === 'stop';
  };
  const batches: string[][] = [];
  for await (const batch of translatedBatches(reads(), translate)) batches.push(batch);
  assert.deepEqual(batches, [
    ['a', 'b'],
    ['c', 'stop'],
  ]);
  assert.ok(returned, 'the reads were closed');

  async function* failing() {
    yield [message('x'), message('bad'), message('y')];
  }
  const got: string[][] = [];
  await assert.rejects(async () => {
    for await (const batch of translatedBatches(failing(), translate)) got.push(batch);
  }, /bad event/);
  assert.deepEqual(got, [['x']]);
});
