/**
 * A long stream-json session costs the same per prompt at its end as at its start (issue 28, B9:
 * 0.97 ms → 6.07 ms over 10,000 prompts, when each model request re-joined and re-serialized the
 * whole history). PROMPTS prompts go to one process; the CPU time the process spends on the last
 * quarter of them is compared with the same number early in the session, both read from /proc in
 * the same run (CPU time, not wall time: the machine's other load moves it far less).
 * `npm run bench` has the 10,000-prompt row.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { memoryDir } from '../helpers/temp.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const PROMPTS = Number(process.env.LONG_SESSION_PROMPTS ?? 4000);
const WINDOW = PROMPTS / 4;

/** CPU time (user + system, in clock ticks) the process has used so far (Linux). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is the 3rd field, utime the 14th, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

test(
  `${PROMPTS} prompts in one stream-json process: the late prompts cost the CPU time of the early ones`,
  { skip: process.platform === 'linux' ? false : 'reads /proc' },
  async (t) => {
    const dir = tempDir();
    // Answers of ~1,000 characters: a history that grows by ~1 KB a prompt, so work redone over the whole history at
    // each prompt shows clearly (the old code: 5x the early CPU time at the end).
    const answer = 'The answer is here. '.repeat(50);
    const script = writeScript(
      dir,
      Array.from({ length: PROMPTS }, (_, i) => ({ text: `${i}: ${answer}` })),
    );
    // The transcript (fsync'd at each result) in memory: the assertion is on CPU time, and waiting for the disk
    // only made the test longer.
    const child = startCli(['--input-format', 'stream-json', ...scriptedStreamArgs(script)], {
      cwd: dir,
      env: { AGENTPIPE_HOME: memoryDir('agentpipe-long-session-') },
    });
    child.stderr!.resume();
    const ticks: number[] = [];
    let results = 0;
    let last = '';
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{"type":"result"')) continue;
        results++;
        last = line;
        if (results % WINDOW === 0 || results === WINDOW / 2) ticks.push(cpuTicks(child.pid!));
      }
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const prompt = (i: number) =>
      JSON.stringify({ type: 'user', message: { role: 'user', content: `question ${i}` }, parent_tool_use_id: null });
    for (let i = 0; i < PROMPTS; i++) {
      if (!child.stdin!.write(`${prompt(i)}\n`)) await new Promise((resolve) => child.stdin!.once('drain', resolve));
    }
    child.stdin!.end();
    assert.equal(await closed, 0);
    assert.equal(results, PROMPTS);
    assert.equal(JSON.parse(last).result, `${PROMPTS - 1}: ${answer}`);
    // ticks: after WINDOW/2 (warmed up), WINDOW, 2×, 3×, 4× WINDOW results. Per WINDOW prompts: the first half window
    // after the warm-up (doubled) against the last window. The old code read 228 against 1,008 here (4.4×); this one
    // reads 1.1-1.3× alone and up to ~1.8× while the whole suite loads the machine.
    const early = (ticks[1]! - ticks[0]!) * 2;
    const late = ticks[4]! - ticks[3]!;
    t.diagnostic(`CPU ticks per ${WINDOW} prompts: ${early} early, ${late} late (${ticks.join(', ')})`);
    assert.ok(
      late <= early * 2.5 + 10,
      `CPU ticks per ${WINDOW} prompts: ${early} early, ${late} late (${ticks.join(', ')})`,
    );
  },
);
