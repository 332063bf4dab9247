/** A client may pipeline: `initialize`, `session/new` and `session/prompt` written at once all get their answers. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { CLI_PATH } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test('initialize and session/new in one write: both answered, in order, no -32600', async () => {
  for (let run = 0; run < 3; run++) {
    const dir = tempDir();
    const script = writeScript(dir, [{ text: 'hi' }]);
    const child = spawn(process.execPath, [CLI_PATH, 'acp', '--model', 'scripted', '--script', script], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, AGENTPIPE_HOME: dir },
    });
    child.stderr.resume();
    const responses: Array<Record<string, any>> = [];
    let buffer = '';
    const done = new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        buffer += d;
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const line of lines) if (line.trim()) responses.push(JSON.parse(line) as Record<string, any>);
        if (responses.filter((r) => 'id' in r).length >= 2) resolve();
      });
    });
    child.stdin.write(
      [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } },
        { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: dir, mcpServers: [] } },
      ]
        .map((m) => JSON.stringify(m))
        .join('\n') + '\n',
    );
    await done;
    child.kill();
    const answers = responses.filter((r) => 'id' in r);
    assert.deepEqual(answers.map((r) => r.id).sort(), [1, 2]);
    const byId = new Map(answers.map((r) => [r.id, r]));
    for (const answer of answers) assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.match(byId.get(2)!.result.sessionId, /^[0-9a-f-]{36}$/);
  }
});
