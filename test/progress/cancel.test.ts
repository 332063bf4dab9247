/** Cancelling a long tool: the interrupt kills it at once, progress stops, one result ends the prompt. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test('interrupt during a long Bash: killed, no progress after its tool_result, result aborted_tools', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Bash', id: 'toolu_long', input: { command: 'sleep 30; touch finished' } }] },
    { text: 'never' },
  ]);
  const child = startCli([...scriptedStreamArgs(script), '--input-format', 'stream-json', '--allowedTools', 'Bash'], {
    cwd: dir,
    env: { AGENTPIPE_TOOL_PROGRESS_MS: '150' },
  });
  const send = (line: unknown) => child.stdin!.write(`${JSON.stringify(line)}\n`);
  send({ type: 'user', session_id: '', message: { role: 'user', content: 'go' }, parent_tool_use_id: null });
  const lines: Array<Record<string, any>> = [];
  let interruptedAt = 0;
  for await (const text of createInterface({ input: child.stdout! })) {
    const line = JSON.parse(text);
    lines.push({ ...line, at: Date.now() });
    if (line.type === 'tool_progress' && !interruptedAt) {
      interruptedAt = Date.now();
      send({ type: 'control_request', request_id: 'stop_1', request: { subtype: 'interrupt' } });
    }
    if (line.type === 'result') {
      // Wait a moment for any stray progress, then close.
      setTimeout(() => child.stdin!.end(), 400);
    }
  }
  const resultLine = lines.find((l) => l.type === 'result')!;
  assert.equal(resultLine.subtype, 'error_during_execution');
  assert.equal(resultLine.terminal_reason, 'aborted_tools');
  assert.ok(resultLine.at - interruptedAt < 3000, `result ${resultLine.at - interruptedAt} ms after the interrupt`);
  const toolResultAt = lines.findIndex((l) => l.type === 'user' && l.message.content[0]?.tool_use_id === 'toolu_long');
  assert.ok(toolResultAt > 0);
  assert.equal(lines[toolResultAt]!.message.content[0].is_error, true);
  assert.match(lines[toolResultAt]!.message.content[0].content, /interrupted/);
  assert.equal(
    lines.slice(toolResultAt).some((l) => l.type === 'tool_progress'),
    false,
    'no progress after the tool_result',
  );
  assert.equal(existsSync(path.join(dir, 'finished')), false);
});
