/**
 * No key agentpipe holds reaches a child process: Bash, a command hook and an MCP stdio server
 * print their environment, and none of the keys is there (nor in the output or transcript);
 * AGENTPIPE_PASS_ENV passes a named one on.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runScripted, toolResults } from '../helpers/agent-run.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { FIXTURE } from '../mcp/helpers.ts';

const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-secret-anthropic-0001',
  ANTHROPIC_AUTH_TOKEN: 'secret-auth-token-0002',
  OPENAI_API_KEY: 'sk-secret-openai-0003',
  CLAUDE_CODE_OAUTH_TOKEN: 'secret-oauth-0004',
  AGENTPIPE_SERVE_TOKEN: 'secret-serve-token-0005',
  AGENTPIPE_SDK_URL_TOKEN: 'secret-sdk-url-token-0006',
  CODEX_API_KEY: 'secret-codex-0007',
};

async function leaks(passEnv?: string) {
  const dir = tempDir();
  const mcp = JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [FIXTURE] } } });
  const settings = JSON.stringify({
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'env > hook.env' }] }] },
  });
  const turns = [
    {
      tool_calls: [
        { name: 'Bash', id: 'toolu_env', input: { command: 'env' } },
        { name: 'mcp__t__env', id: 'toolu_mcp', input: {} },
      ],
    },
    { text: 'done' },
  ];
  const run = await runScripted(
    dir,
    turns,
    ['--permission-mode', 'bypassPermissions', '--mcp-config', mcp, '--settings', settings, '--model', 'scripted'],
    {
      env: { ...SECRETS, ...(passEnv ? { AGENTPIPE_PASS_ENV: passEnv } : {}) },
    },
  );
  assert.equal(run.lines.at(-1)?.subtype, 'success', run.stderr);
  const results = toolResults(run.lines);
  return {
    bash: String(results.get('toolu_env')!.content),
    mcp: JSON.stringify(results.get('toolu_mcp')!.content),
    hook: readFileSync(path.join(dir, 'hook.env'), 'utf8'),
    stdout: run.stdout,
  };
}

test('Bash, a command hook and an MCP server see none of the keys agentpipe holds', async () => {
  const seen = await leaks();
  assert.match(seen.bash, /^PATH=/m, 'Bash printed its environment');
  assert.match(seen.hook, /^PATH=/m, 'the hook printed its environment');
  assert.match(seen.mcp, /PATH/, 'the MCP server returned its environment');
  for (const [name, value] of Object.entries(SECRETS)) {
    for (const [where, text] of Object.entries(seen)) assert.ok(!text.includes(value), `${name} reached ${where}`);
  }
});

test('AGENTPIPE_PASS_ENV passes a named key on to tools, and only that one', async () => {
  const seen = await leaks('OPENAI_API_KEY');
  assert.ok(seen.bash.includes(SECRETS.OPENAI_API_KEY));
  assert.ok(!seen.bash.includes(SECRETS.ANTHROPIC_API_KEY));
  assert.ok(!seen.mcp.includes(SECRETS.OPENAI_API_KEY), 'MCP servers get only their configured env');
});

test("agentpipe exec: the variable a provider's env_key names is withheld from Bash like the other keys", async () => {
  const dir = tempDir();
  const script = path.join(dir, 'script.json');
  writeFileSync(
    script,
    JSON.stringify({
      turns: [{ tool_calls: [{ name: 'Bash', id: 'toolu_env', input: { command: 'env' } }] }, { text: 'done' }],
    }),
  );
  const run = await runCli(
    [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '-c',
      `agentpipe.script=${JSON.stringify(script)}`,
      '-c',
      'model_provider="mine"',
      '-c',
      'model_providers.mine.env_key="MY_PROVIDER_KEY"',
      'print the environment',
    ],
    { cwd: dir, env: { MY_PROVIDER_KEY: 'secret-provider-key-0008', AGENTPIPE_HOME: path.join(dir, 'home') } },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /PATH=/, 'Bash printed its environment');
  assert.ok(!run.stdout.includes('secret-provider-key-0008'), 'the provider key reached Bash');
});
