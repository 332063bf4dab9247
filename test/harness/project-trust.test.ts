/**
 * The wrapped Claude Code reads a folder's own `.claude/` (hooks, permission rules, agents) by
 * itself, and in print mode it asks nobody. In a folder the user has not trusted (issue 27)
 * agentpipe starts it with `--setting-sources=user`, so a cloned repository's `.claude/` hooks do
 * not run there either; with trust (here `--trust-project`) they do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';
import { claudeOfflineEnv, harnessDirs, testPath } from './helpers.ts';

test("--harness claude in a folder not trusted: the folder's .claude/settings.json hooks do not run; trusted, they do", async () => {
  const api = await startFakeServer((request) =>
    request.method === 'POST' && request.path.startsWith('/v1/messages') && !request.path.includes('count_tokens')
      ? {
          kind: 'sse',
          frames: anthropicStream(
            [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'ok' }])],
            'end_turn',
          ),
        }
      : { kind: 'json', status: 200, body: { input_tokens: 1 } },
  );
  const { home, cwd } = harnessDirs('claude-trust');
  // In the working folder: the wrapped CLI (and so its hooks) runs in the OS sandbox, which writes only there.
  const marker = path.join(cwd, 'claude-hook-ran');
  mkdirSync(path.join(cwd, '.claude'));
  writeFileSync(
    path.join(cwd, '.claude', 'settings.json'),
    JSON.stringify({
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch ${JSON.stringify(marker)}` }] }] },
    }),
  );
  const env = { ...claudeOfflineEnv(api.url, home), PATH: testPath(), AGENTPIPE_PASS_ENV: '' };
  const run = (extra: string[]) =>
    runCli(['-p', 'hi', '--harness', 'claude', '--base-url', api.url, '--no-session-persistence', ...extra], {
      cwd,
      env,
      timeoutMs: 60_000,
    });
  try {
    const untrusted = await run([]);
    assert.equal(untrusted.code, 0, untrusted.stderr);
    assert.equal(untrusted.stdout.trim(), 'ok');
    assert.equal(existsSync(marker), false, "the untrusted folder's hook did not run");
    const trusted = await run(['--trust-project']);
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.ok(existsSync(marker), "the trusted folder's hook ran");
  } finally {
    rmSync(marker, { force: true });
    await api.close();
  }
});
