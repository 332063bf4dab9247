/**
 * A flood of control requests (issue 27: 10^6 on stdio took 650 s and 1.5 GB, the output queue's
 * `Array#shift` and one pending answer per request read). The growth is asserted, not a time: the
 * CPU seconds of 10^6 requests against those of 10^5, from bash's `times` (CPU, not wall clock,
 * so a loaded machine does not flake it); linear is ~10x with start-up in both, quadratic was
 * ~100x. The heap is capped at 64 MB for the big run: every answer must be let go once written.
 * `serve` the same over one WebSocket connection (10^4 against 10^5: the server's CPU from /proc).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { CLI_PATH } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { watchedCli } from '../transport/ws-helpers.ts';

const SUBTYPES = ['get_session_cost', 'get_usage', 'get_settings', 'no_such_request'];

/** Runs the CLI on `n` control requests; its CPU seconds and the answers it wrote (successes, errors). */
async function flood(n: number, env: Record<string, string> = {}) {
  const cwd = tempDir();
  const args = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];
  const child = spawn(
    'bash',
    ['-c', '"$@"; code=$?; times >&2; exit $code', 'flood', process.execPath, CLI_PATH, ...args, '--model', 'scripted'],
    { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ANTHROPIC_API_KEY: '', ...env } },
  );
  const counts = { success: 0, error: 0, other: 0, lastId: '' };
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('{"type":"control_response"')) counts.other++;
      else if (line.includes('"subtype":"success"')) counts.success++;
      else counts.error++;
      counts.lastId = /"request_id":"(r\d+)"/.exec(line)?.[1] ?? counts.lastId;
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = once(child, 'close');
  for (let i = 0; i < n;) {
    let chunk = '';
    for (const end = Math.min(n, i + 10_000); i < end; i++)
      chunk += `{"type":"control_request","request_id":"r${i}","request":{"subtype":"${SUBTYPES[i % 4]}"}}\n`;
    if (!child.stdin.write(chunk)) await once(child.stdin, 'drain');
  }
  child.stdin.end();
  const [code] = (await closed) as [number];
  assert.equal(code, 0, stderr.slice(-2000));
  const [user, sys] = [
    ...stderr
      .trim()
      .split('\n')
      .at(-1)!
      .matchAll(/(\d+)m([\d.]+)s/g),
  ].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { cpu: user! + sys!, ...counts };
}

test('10^6 control requests on stdin: each answered once, in order, in linear time and bounded memory', async (t) => {
  const small = await flood(100_000);
  const big = await flood(1_000_000, { NODE_OPTIONS: '--max-old-space-size=64' });
  for (const [run, n] of [
    [small, 100_000],
    [big, 1_000_000],
  ] as const) {
    assert.equal(run.success, (n / 4) * 3, 'three of four subtypes succeed');
    assert.equal(run.error, n / 4, 'the unknown one is an error response');
    assert.equal(run.other, 0);
    assert.equal(run.lastId, `r${n - 1}`);
  }
  const ratio = big.cpu / small.cpu;
  t.diagnostic(`CPU: ${small.cpu} s for 10^5, ${big.cpu} s for 10^6 (${ratio.toFixed(1)}x)`);
  assert.ok(ratio < 25, `10x the requests took ${ratio.toFixed(1)}x the CPU (${small.cpu} s, ${big.cpu} s)`);
});

/** CPU seconds a live process has used so far (Linux: /proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Sends `n` control requests on a new connection, then end_input; resolves with the answers counted. */
async function floodSocket(url: string, n: number): Promise<{ success: number; error: number }> {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  const counts = { success: 0, error: 0 };
  ws.on('message', (data) => {
    for (const line of data.toString().split('\n')) {
      if (!line.startsWith('{"type":"control_response"')) continue;
      if (line.includes('"subtype":"success"')) counts.success++;
      else counts.error++;
    }
  });
  const closed = once(ws, 'close');
  for (let i = 0; i < n;) {
    let chunk = '';
    for (const end = Math.min(n, i + 1000); i < end; i++)
      chunk += `{"type":"control_request","request_id":"r${i}","request":{"subtype":"${SUBTYPES[i % 4]}"}}\n`;
    ws.send(chunk);
  }
  ws.send('{"type":"end_input"}\n');
  await closed;
  return counts;
}

test('serve: 10^5 control requests on one connection are answered in linear time; the server answers the next', async (t) => {
  const cli = watchedCli(['serve', '--port', '0', '--no-token', '--model', 'scripted', '--cwd', tempDir()]);
  t.after(() => cli.child.kill('SIGTERM'));
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+)/);
  const cpu: number[] = [];
  for (const n of [10_000, 100_000]) {
    const before = cpuOf(cli.child.pid!);
    assert.deepEqual(await floodSocket(url!, n), { success: (n / 4) * 3, error: n / 4 });
    cpu.push(cpuOf(cli.child.pid!) - before);
  }
  const ratio = cpu[1]! / cpu[0]!;
  t.diagnostic(`server CPU: ${cpu[0]} s for 10^4, ${cpu[1]} s for 10^5 (${ratio.toFixed(1)}x)`);
  assert.ok(ratio < 25, `10x the requests took ${ratio.toFixed(1)}x the CPU`);
  assert.deepEqual(await floodSocket(url!, 4), { success: 3, error: 1 }, 'the server lives on');
});

test('serve: a client that floods and stops reading is cut off by the heartbeat (not held forever); the next is served', async (t) => {
  const cli = watchedCli(['serve', '--port', '0', '--no-token', '--model', 'scripted', '--cwd', tempDir()], {
    AGENTPIPE_WS_KEEPALIVE_MS: '300',
  });
  t.after(() => cli.child.kill('SIGTERM'));
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+)/);
  const ws = new WebSocket(url!);
  await once(ws, 'open');
  ws.on('error', () => undefined);
  ws.pause(); // reads nothing from here on: its answers pile up at the server
  const line = '{"type":"control_request","request_id":"r","request":{"subtype":"get_usage"}}\n';
  for (let i = 0; i < 200; i++) ws.send(line.repeat(1000));
  await cli.waitFor(/connection 1 ended/, 30_000);
  ws.terminate();
  assert.deepEqual(await floodSocket(url!, 4), { success: 3, error: 1 }, 'the server lives on');
});
