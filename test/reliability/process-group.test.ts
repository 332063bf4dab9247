/** The one process runner: caps, timeouts, aborts, and nothing left running in the group. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { liveGroupCount, runProcessGroup, startProcessGroup } from '../../src/process/run.ts';

const base = { cwd: process.cwd(), env: process.env };

test('output is capped per stream and the drop is counted; stdin reaches the command', async () => {
  const run = await runProcessGroup({
    ...base,
    command: 'cat; head -c 5000 /dev/zero | tr "\\0" e >&2',
    stdin: 'hello',
    cap: 1000,
  });
  assert.equal(run.code, 0);
  assert.equal(run.stdout, 'hello');
  assert.equal(run.stderr.length, 1000);
  assert.equal(run.dropped.stderr, 4000);
});

test('a timeout stops the group in stages: a command that ignores SIGTERM is killed after the grace', async () => {
  const run = await runProcessGroup({ ...base, command: 'trap "" TERM; sleep 30', timeoutMs: 100, graceMs: 100 });
  assert.equal(run.stopped, 'timeout');
  assert.equal(run.exitSignal, 'SIGKILL');
});

test('an abort stops the group; children it started in the background go too', async () => {
  const abort = new AbortController();
  const running = startProcessGroup({
    ...base,
    command: 'sleep 30 & echo $!; wait',
    signal: abort.signal,
    onOutput: () => abort.abort(),
  });
  const run = await running.done;
  assert.equal(run.stopped, 'aborted');
  const child = Number(run.stdout.trim());
  const alive = () => {
    try {
      process.kill(child, 0);
      return true;
    } catch {
      return false;
    }
  };
  // A killed process lingers until it is reaped; it must not run on.
  for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(alive(), false, 'the background child is gone');
  assert.equal(liveGroupCount(), 0);
});

test('an argv runs without a shell; a missing program is an error, not a throw', async () => {
  const ok = await runProcessGroup({ ...base, command: ['printf', '%s', 'a b'] });
  assert.equal(ok.stdout, 'a b');
  const missing = await runProcessGroup({ ...base, command: ['/nonexistent/program'] });
  assert.match(String(missing.error?.message), /ENOENT/);
});
