/** Agents from the SDK client's `initialize.agents`: listed in the answer and in system/init, usable by Task. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { toolResults } from '../helpers/agent-run.ts';

test('initialize.agents defines subagents for the Task tool', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    {
      tool_calls: [
        {
          name: 'Task',
          id: 'toolu_rev',
          input: { description: 'review', prompt: 'review it', subagent_type: 'reviewer' },
        },
      ],
    },
    { text: 'looks good' },
    { text: 'reviewed' },
  ]);
  const stdin =
    [
      {
        type: 'control_request',
        request_id: 'init',
        request: {
          subtype: 'initialize',
          agents: { reviewer: { description: 'Reviews code', prompt: 'You review.' } },
        },
      },
      { type: 'user', session_id: '', message: { role: 'user', content: 'go' }, parent_tool_use_id: null },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n') + '\n';
  const run = await runCli([...scriptedStreamArgs(script), '--input-format', 'stream-json'], { cwd: dir, stdin });
  assert.equal(run.code, 0, run.stderr);
  const lines = parseLines(run.stdout);
  const answer = lines.find((l) => l.type === 'control_response')!;
  assert.deepEqual(
    answer.response.response.agents.map((a: any) => a.name),
    ['general-purpose', 'reviewer'],
  );
  const init = lines.find((l) => l.subtype === 'init')!;
  assert.deepEqual(init.agents, ['general-purpose', 'reviewer']);
  assert.ok(init.tools.includes('Task'));
  assert.equal(toolResults(lines).get('toolu_rev')!.content, 'looks good');
  assert.equal(lines.at(-1)!.result, 'reviewed');
});
