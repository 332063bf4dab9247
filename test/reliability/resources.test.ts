/**
 * Bounded resources under abuse: a 1 GB input line with no newline is skipped with a clear error
 * while memory stays bounded by the line cap, not the line (peak RSS under 300 MB with the default
 * 64 Mi cap, under 250 MB with a 1 MiB cap); 2,000 idle serve connections cost under 100 KB each.
 * The read buffers of stdin are external memory that V8 collects only past its 64 MB external
 * allocation soft limit, so a 1 GiB read peaks at about the idle RSS plus 64 MB plus what the
 * collector is late by (100 to 162 MB measured, the most while CI runs the other tests), whatever
 * the cap: the bound checks that the line itself (1,024 MB) is never held.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import WebSocket from 'ws';
import { scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { serveOn } from '../transport/serve-client.ts';

/** Resolves `graceMs` after `check` first holds. */
async function until(check: () => boolean, graceMs: number): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, graceMs));
}

/** A process's resident memory now and at its peak, in MB (Linux). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const linux = process.platform === 'linux' ? false : 'reads /proc';

for (const [cap, limitMb] of [
  [undefined, 300],
  [1 << 20, 250],
] as const) {
  test(
    `a 1 GB line with no newline (line cap ${cap ?? 'default'}): peak memory under ${limitMb} MB, the line is ` +
      `refused, the next prompt runs`,
    { skip: linux },
    async (t) => {
      const dir = tempDir();
      const script = writeScript(dir, [{ text: 'still here' }]);
      const env = cap ? { AGENTPIPE_MAX_INPUT_LINE: String(cap) } : {};
      const child = startCli(['--input-format', 'stream-json', ...scriptedStreamArgs(script)], { cwd: dir, env });
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const chunk = Buffer.alloc(1 << 20, 'a');
      for (let i = 0; i < 1024; i++) {
        if (!child.stdin!.write(chunk)) await new Promise((resolve) => child.stdin!.once('drain', resolve));
      }
      const peak = memory(child.pid!).peak;
      child.stdin!.end(
        '\n' +
          JSON.stringify({
            type: 'user',
            message: { role: 'user', content: 'hi' },
            parent_tool_use_id: null,
            session_id: '',
          }) +
          '\n',
      );
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      // About 1 run in 15, after the result is written, Node's own teardown deadlocks (main thread
      // joining a V8 worker, both in a futex wait; seen at the commit before the harness work too):
      // the process is then killed and the hang reported, the other assertions still hold.
      const exited = await Promise.race([
        closed,
        until(() => stdout.includes('"type":"result"'), 20_000).then(() => undefined),
      ]);
      if (exited === undefined) {
        t.diagnostic("the CLI wrote its result but hung in Node's exit teardown: killed (see the issue 11 note)");
        child.kill('SIGKILL');
        await closed;
      } else assert.equal(exited, 0, stderr);
      assert.ok(peak < limitMb, `peak RSS ${peak.toFixed(1)} MB while reading the line`);
      assert.match(stderr, /a line of 1073741824 characters is over the limit/);
      assert.match(stdout, /"result":"still here"/);
    },
  );
}

test('2,000 idle serve connections cost under 100 KB each', { skip: linux }, async () => {
  const { cli, url } = await serveOn(['--model', 'scripted', '--cwd', tempDir()]);
  const pid = cli.child.pid!;
  const open = async (n: number) => {
    const sockets: WebSocket[] = [];
    for (let i = 0; i < n; i += 100) {
      await Promise.all(
        Array.from(
          { length: Math.min(100, n - i) },
          () =>
            new Promise<void>((resolve, reject) => {
              const ws = new WebSocket(url);
              sockets.push(ws);
              ws.once('open', () => resolve());
              ws.once('error', reject);
            }),
        ),
      );
    }
    return sockets;
  };
  const warm = await open(50);
  const before = memory(pid).rss;
  const idle = await open(2000);
  await new Promise((r) => setTimeout(r, 200));
  const perConnectionKb = ((memory(pid).rss - before) * 1024) / 2000;
  for (const ws of [...warm, ...idle]) ws.terminate();
  assert.ok(perConnectionKb < 100, `${perConnectionKb.toFixed(1)} KB per idle connection`);
});
