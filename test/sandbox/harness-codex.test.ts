/**
 * `--harness codex` on codex's app-server (its default protocol) runs in the session's sandbox like every wrapped CLI:
 * it was started outside it, so the commands codex ran in bypassPermissions saw every process of the machine and
 * agentpipe's home. The real codex from test/harness/clis against the Responses API fake, through the real CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { harnessDirs, testPath } from '../harness/helpers.ts';
import { startResponsesServer } from '../harness/fakes/responses-api.ts';
import { parseLines, runCli } from '../helpers/cli.ts';

test('--harness codex (app-server) runs in the sandbox: no other process, no agentpipe home', async () => {
  const { home, cwd } = harnessDirs('codex-confined');
  const agentpipeHome = path.join(path.dirname(home), 'agentpipe-home');
  mkdirSync(agentpipeHome);
  writeFileSync(path.join(agentpipeHome, 'secret.txt'), 'AGENTPIPE-HOME-READ\n');
  const command =
    `echo "processes $(ls /proc | grep -c '^[0-9][0-9]*$')"; ` +
    `cat ${path.join(agentpipeHome, 'secret.txt')} 2>/dev/null || echo "home hidden"; ` +
    `ls /proc/${process.pid} >/dev/null 2>&1 && echo "test process seen" || echo "test process unseen"`;
  const server = await startResponsesServer([
    { kind: 'call', name: 'exec_command', arguments: { cmd: command } },
    { kind: 'text', text: 'Looked.' },
  ]);
  writeFileSync(path.join(home, 'config.toml'), '[model_providers.agentpipe]\nrequest_max_retries = 0\n');
  try {
    const args = ['-p', 'look', '--harness', 'codex', '--base-url', server.baseUrl, '--model', 'fake-model'];
    const run = await runCli(
      [...args, '--permission-mode', 'bypassPermissions', '--output-format', 'stream-json', '--verbose'],
      {
        cwd,
        env: {
          PATH: testPath(),
          HOME: home,
          CODEX_HOME: home,
          CODEX_API_KEY: 'sk-fake',
          AGENTPIPE_HOME: agentpipeHome,
          AGENTPIPE_CODEX_PROTOCOL: 'app-server',
        },
        timeoutMs: 60_000,
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const lines = parseLines(run.stdout);
    assert.equal(lines.at(-1)!.result, 'Looked.');
    const output = JSON.stringify(lines.filter((l) => l.type === 'user').map((l) => l.message.content));
    assert.match(output, /home hidden/);
    assert.match(output, /test process unseen/);
    const count = Number(/processes (\d+)/.exec(output)?.[1]);
    assert.ok(count > 0 && count < 20, `only the sandbox's own processes: ${count}`);
  } finally {
    await server.close();
  }
});
