/**
 * The official Claude Agent SDK passes its options as flags (`--effort=high`, `--agent=x`, ...): agentpipe honours them
 * without warnings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { tempDir } from '../helpers/workspace.ts';
import { sdkOptions } from '../sdk/helpers.ts';
import { parseLines, runCli } from '../helpers/cli.ts';

test('effort, thinking, agent (from initialize), settingSources, additionalDirectories, fallbackModel and debugFile from the official SDK', async () => {
  const extra = tempDir();
  const options = sdkOptions([{ text: 'done' }]);
  mkdirSync(path.join(options.cwd, '.agentpipe'));
  writeFileSync(
    path.join(options.cwd, '.agentpipe', 'settings.json'),
    JSON.stringify({ permissions: { deny: ['Grep'] } }),
  );
  const debugFile = path.join(options.cwd, 'debug.log');
  const messages: SDKMessage[] = [];
  for await (const message of query({
    prompt: 'hi',
    options: {
      ...options,
      effort: 'high',
      thinking: { type: 'adaptive' },
      fallbackModel: 'backup-model',
      additionalDirectories: [extra],
      settingSources: ['project'],
      agents: { helper: { description: 'Helps', prompt: 'You help.', tools: ['Read', 'Grep', 'Glob'] } },
      agent: 'helper',
      debugFile,
      allowDangerouslySkipPermissions: true,
      permissionMode: 'bypassPermissions',
    },
  }))
    messages.push(message);
  const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
  assert.ok(init && init.type === 'system' && init.subtype === 'init');
  assert.equal(init.effort, 'high');
  assert.deepEqual([...init.tools].sort(), ['Glob', 'Read'], "the agent's tools, minus the project settings' deny");
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success');
  assert.doesNotMatch(options.stderrText(), /not supported yet/);
  assert.match(
    readFileSync(debugFile, 'utf8'),
    /\[api\] request: model scripted, 1 messages, tools \[Glob, Read\], effort high, thinking adaptive/,
  );
});

test("every flag the SDK's argv builder can pass is accepted: the inert ones warn once, the session runs", async () => {
  const sdk = readFileSync(
    path.join(import.meta.dirname, '../../node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs'),
    'utf8',
  );
  // The flags the SDK pushes onto the CLI's argv (not those of git or of its own child processes): `push("--x"` or a
  // one- or two-letter minified helper's `et("--x"` (its name changes between releases: `et` in 0.3.330, `nt` in
  // 0.3.332; both releases give the same 40 flags).
  const pushed = new Set(
    [...sdk.matchAll(/(?:push|(?<![\w$])[A-Za-z_$][\w$]?)\("(--[a-z][a-z-]*)"/g)].map((m) => m[1]!),
  );
  for (const flag of [
    '--session-mirror',
    '--resume-drops-turn',
    '--initialize-fields',
    '--channels',
    '--plugin-dir-no-mcp',
    '--managed-settings-in-initialize',
  ]) {
    assert.ok(pushed.has(flag), `${flag} is among the SDK's flags (${[...pushed].join(' ')})`);
  }
  const help = (await runCli(['--help'])).stdout;
  const missing = [...pushed].filter((flag) => !help.includes(flag));
  assert.deepEqual(missing, [], 'each is a flag of agentpipe');
  const run = await runCli([
    '-p',
    'hi',
    '--model',
    'scripted',
    '--output-format',
    'stream-json',
    '--verbose',
    '--channels',
    'plugin:x',
    '--plugin-dir-no-mcp',
    '/nonexistent',
    '--managed-settings-in-initialize',
    '--initialize-fields',
    'settings,disallowedTools',
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /--channels.*not supported yet|channels/);
  assert.equal(parseLines(run.stdout).at(-1)?.subtype, 'success');
});
