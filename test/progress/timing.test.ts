/** tool_progress through the real CLI: threshold, interval, streamed Bash output, none after the result. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/workspace.ts';
import { ofType, runScripted } from '../helpers/agent-run.ts';

test('a sleeping Bash gets heartbeats after the threshold, at the interval, with its output; none after its result', async () => {
  const dir = tempDir();
  const turns = [
    { tool_calls: [{ name: 'Bash', id: 'toolu_slow', input: { command: 'echo started; sleep 1.2; echo finished' } }] },
    { text: 'ok' },
  ];
  const env = { AGENTPIPE_TOOL_PROGRESS_MS: '300', AGENTPIPE_TOOL_PROGRESS_INTERVAL_MS: '200' };
  const run = await runScripted(dir, turns, ['--allowedTools', 'Bash'], { env });
  assert.equal(run.code, 0, run.stderr);
  const progress = ofType(run.lines, 'tool_progress');
  // 1.2 s of sleep: a first beat at 0.3 s, then one every 0.2 s (fewer when the machine is busy).
  assert.ok(progress.length >= 2 && progress.length <= 7, `${progress.length} heartbeats`);
  for (const p of progress) {
    assert.equal(p.tool_use_id, 'toolu_slow');
    assert.equal(p.tool_name, 'Bash');
    assert.equal(p.parent_tool_use_id, null);
  }
  // The latest output so far, in order: none while the command starts (its sandbox, on a busy
  // machine, can take longer than the threshold), then 'started', then 'finished' when a beat
  // lands between the last echo and the exit (with 'started' still in it when no beat came between
  // the two echoes, which a busy machine can also cause).
  const stage = (output: unknown) =>
    output === undefined ? 0 : output === 'started\n' ? 1 : /^(started\n)?finished\n$/.test(String(output)) ? 2 : -1;
  const outputs = progress.map((p) => stage(p.output));
  assert.ok(!outputs.includes(-1), `known outputs only: ${JSON.stringify(progress.map((p) => p.output))}`);
  assert.deepEqual(outputs, [...outputs].sort(), `outputs in order: ${JSON.stringify(progress.map((p) => p.output))}`);
  assert.ok(
    outputs.some((o) => o > 0),
    'a beat carries the output so far',
  );
  const elapsed = progress.map((p) => p.elapsed_time_seconds);
  assert.ok(elapsed[0]! >= 0.3 && elapsed[0]! < 1.2, `first at ${elapsed[0]}`);
  for (let i = 1; i < elapsed.length; i++) assert.ok(elapsed[i]! > elapsed[i - 1]!, 'elapsed grows');
  const resultAt = run.lines.findIndex((l) => l.type === 'user' && l.message.content[0]?.tool_use_id === 'toolu_slow');
  const lastProgressAt = run.lines.findLastIndex((l) => l.type === 'tool_progress');
  assert.ok(lastProgressAt < resultAt, 'no progress after the tool_result');
});

test('a quick tool gets no progress; a bad AGENTPIPE_TOOL_PROGRESS_MS is a usage error', async () => {
  const dir = tempDir();
  const run = await runScripted(
    dir,
    [{ tool_calls: [{ name: 'Bash', input: { command: 'echo quick' } }] }, { text: 'ok' }],
    ['--allowedTools', 'Bash'],
  );
  assert.equal(ofType(run.lines, 'tool_progress').length, 0);
  const bad = await runScripted(dir, [{ text: 'x' }], [], { env: { AGENTPIPE_TOOL_PROGRESS_MS: 'soon' } });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /AGENTPIPE_TOOL_PROGRESS_MS must be a number of milliseconds/);
});

test('progress of a tool inside a subagent carries the Task id as parent', async () => {
  const dir = tempDir();
  const turns = [
    {
      tool_calls: [
        { name: 'Task', id: 'toolu_task', input: { description: 'd', prompt: 'p', subagent_type: 'general-purpose' } },
      ],
    },
    { tool_calls: [{ name: 'Bash', id: 'toolu_inner', input: { command: 'sleep 0.6' } }] },
    { text: 'slept' },
    { text: 'done' },
  ];
  const run = await runScripted(dir, turns, ['--agents', '{}', '--allowedTools', 'Bash'], {
    env: { AGENTPIPE_TOOL_PROGRESS_MS: '200' },
  });
  assert.equal(run.code, 0, run.stderr);
  const inner = ofType(run.lines, 'tool_progress').filter((p) => p.tool_use_id === 'toolu_inner');
  assert.ok(inner.length >= 1);
  for (const p of inner) assert.equal(p.parent_tool_use_id, 'toolu_task');
});
