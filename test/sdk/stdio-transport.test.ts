import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StdioTransport } from '../../src/sdk/stdio-transport.ts';

const node = process.execPath;

test('lines() yields every stdout line, blank ones skipped', async () => {
  const t = new StdioTransport({
    command: node,
    args: ['-e', 'console.log("{\\"a\\":1}"); console.log(""); console.log("noise")'],
    env: process.env,
  });
  const seen: string[] = [];
  for await (const line of t.lines()) seen.push(line);
  assert.deepEqual(seen, ['{"a":1}', 'noise']);
  assert.equal(await t.exited, 0);
});

test('send() waits for the pipe to drain: a child that reads slowly still gets every line in order', async () => {
  const t = new StdioTransport({
    command: node,
    args: [
      '-e',
      "let n=0;process.stdin.on('data',()=>{});" +
        "const rl=require('readline').createInterface({input:process.stdin});" +
        "rl.on('line',l=>{n++;if(JSON.parse(l).i!==n-1)process.exit(3)});" +
        "rl.on('close',()=>{console.log(JSON.stringify({n}))})",
    ],
    env: process.env,
  });
  const big = 'x'.repeat(64 * 1024);
  for (let i = 0; i < 200; i++) assert.equal(await t.send({ i, big }), true);
  t.endInput();
  const seen: unknown[] = [];
  for await (const line of t.lines()) seen.push(JSON.parse(line));
  assert.deepEqual(seen, [{ n: 200 }]);
  assert.equal(await t.send({ late: true }), false, 'a send after endInput() says the input is closed');
});

test('close() escalates to SIGKILL when the child ignores SIGTERM', async () => {
  const t = new StdioTransport({
    command: node,
    args: ['-e', 'process.on("SIGTERM",()=>{}); console.log("{}"); setInterval(()=>{}, 1000)'],
    env: process.env,
    graceMs: 100,
  });
  const first = await t.lines().next();
  assert.equal(first.value, '{}');
  await t.close();
  assert.equal(await t.exited, null, 'ended by a signal');
});

test('a command that cannot start reports why, without throwing', async () => {
  const t = new StdioTransport({ command: '/nonexistent/agentpipe', args: [], env: process.env });
  assert.equal(await t.exited, -1);
  assert.match(String(t.startError?.message), /ENOENT/);
  assert.equal(await t.send({}), false);
  await t.close();
});
