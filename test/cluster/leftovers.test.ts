/**
 * Issue 28 B8: a worker killed with SIGKILL leaves its transcript copies in its temp folder and
 * its running tools carry on. Now the worker records the tool process groups it runs in its own
 * folder (`$TMPDIR/agentpipe-worker-<pid>-*`); the next worker started on the machine stops the
 * groups a dead worker left running and removes its folder, and so does a worker already running there when it
 * takes a session over (before the cut turn goes on). (The session itself is taken over by a worker anywhere, the
 * call reported as of unknown outcome.)
 * In the OS sandbox a tool dies with its worker (bubblewrap's --die-with-parent); the sessions here
 * run with `--sandbox off` (the option travels in the job) so the tool outlives its worker, as any
 * command run outside the sandbox would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { processesWith } from '../helpers/processes.ts';
import { startRedis } from './redis-server.ts';
import { Client, eventually, kill9, prompt, startFrontEnd, startWorker, UNTIL_RELEASED } from './cluster.ts';

for (const already of [false, true])
  test(`B8: ${already ? 'a worker already running on the machine, at its takeover,' : 'the next worker on the machine'} stops the tools a SIGKILLed worker left running and removes its folder`, async () => {
    const redis = await startRedis();
    const dir = tempDir();
    const tmp = tempDir(); // the machine's temp folder, for these workers only
    const pidFile = path.join(dir, 'pid');
    const command = `echo $$ > ${pidFile}; ${UNTIL_RELEASED}`;
    const script = writeScript(
      dir,
      [{ tool_calls: [{ id: 'toolu_left', name: 'Bash', input: { command } }] }, { text: 'goes on' }],
      'script.json',
      'history',
    );
    const env = { TMPDIR: tmp };
    const first = await startWorker(redis.url, env);
    const front = await startFrontEnd(redis.url, [
      ...['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'],
      ...['--sandbox', 'off'],
    ]);
    let second: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      const client = new Client(front.url);
      await client.open();
      client.send(prompt('run it'));
      await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 'the tool running');
      const [folder] = readdirSync(tmp).filter((name) => name.startsWith(`agentpipe-worker-${first.child.pid}-`));
      assert.ok(folder, 'the worker has its folder');
      // Recorded right after the spawn returns (the tool may write its pid first).
      await eventually(
        () =>
          processesWith(pidFile)
            .map((line) => Number(line.split(/\s+/)[0]))
            .some((pid) => existsSync(path.join(tmp, folder, 'groups', String(pid)))),
        'the running group recorded',
      );

      if (already) second = await startWorker(redis.url, env);
      await kill9(first);
      assert.ok(processesWith(pidFile).length > 0, 'a SIGKILLed worker leaves its tool running');
      assert.ok(existsSync(path.join(tmp, folder)), 'and its folder');

      second ??= await startWorker(redis.url, env);
      const removed = new RegExp(`removed \\S+${folder}, left by a worker that is gone; stopped 1 tool`);
      await eventually(() => removed.test(second!.stderr()), "the dead worker's leftovers cleaned");
      await eventually(() => processesWith(pidFile).length === 0, 'the orphaned tool stopped');
      assert.equal(existsSync(path.join(tmp, folder)), false, 'the folder removed');

      // The session goes on, taken over by the new worker: the call's outcome unknown, the prompt's result a success.
      await client.until(() => client.results().length === 1, 'the result', 30_000);
      assert.equal(client.results()[0]!.result, 'goes on');
      client.send('{"type":"end_input"}\n');
      await client.closed;
    } finally {
      writeFileSync(path.join(dir, 'release'), '');
      for (const cli of [front, first, ...(second ? [second] : [])]) await kill9(cli);
      await redis.stop();
    }
  });
