/**
 * The trust boundary of a wrapped CLI, tried as an attacker would: `--harness-command` is one
 * plain command run without a shell (anything a shell would expand or chain is refused), and the
 * wrapped CLI gets only its own key, never agentpipe's other secrets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { harnessCommand, harnessEnv, HarnessSetupError } from '../../src/harness/index.ts';
import { harnessDirs } from './helpers.ts';

const REFUSED = [
  'agent; rm -rf x',
  'agent && touch x',
  'agent | tee log',
  'agent & touch x',
  'agent $(touch x)',
  'agent `touch x`',
  '$HOME/agent',
  'agent $SECRET',
  'agent *.json',
  'FOO=1 agent',
  'agent > out.txt',
  '(agent)',
  'agent\ntouch x',
];

test('--harness-command refuses what a shell would chain, substitute or expand', async () => {
  for (const command of REFUSED) {
    await assert.rejects(harnessCommand('acp', command, process.env), HarnessSetupError, JSON.stringify(command));
  }
});

test('--harness-command: quoted words stay one argument, the program is resolved on PATH, nothing runs through a shell', async () => {
  const { cwd } = harnessDirs('setup-command');
  const agent = path.join(cwd, 'my agent');
  writeFileSync(agent, '#!/bin/sh\n');
  chmodSync(agent, 0o755);
  assert.deepEqual(await harnessCommand('acp', `'${agent}' acp --name 'two words' "a;b"`, process.env), [
    agent,
    'acp',
    '--name',
    'two words',
    'a;b',
  ]);
  const env = { ...process.env, PATH: cwd };
  await assert.rejects(harnessCommand('acp', 'no-such-agent acp', env), /no-such-agent not found/);
  await assert.rejects(
    harnessCommand('codex', undefined, env),
    /the codex CLI is not on PATH \(install it: npm install -g @openai\/codex\)/,
  );
});

test("the wrapped CLI gets its own key only: agentpipe's other secrets and the serve token stay out", () => {
  const base = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    ANTHROPIC_API_KEY: 'sk-ant',
    OPENAI_API_KEY: 'sk-oai',
    CODEX_API_KEY: 'sk-codex',
    GEMINI_API_KEY: 'g-key',
    AGENTPIPE_SERVE_TOKEN: 'serve-token',
    CLAUDE_CODE_OAUTH_TOKEN: 'oauth',
  };
  const codex = harnessEnv('codex', base);
  assert.equal(codex.CODEX_API_KEY, 'sk-codex');
  assert.equal(codex.OPENAI_API_KEY, 'sk-oai');
  for (const key of ['ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'AGENTPIPE_SERVE_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'])
    assert.equal(codex[key], undefined, key);
  const claude = harnessEnv('claude', base);
  assert.equal(claude.ANTHROPIC_API_KEY, 'sk-ant');
  for (const key of ['OPENAI_API_KEY', 'CODEX_API_KEY', 'GEMINI_API_KEY', 'AGENTPIPE_SERVE_TOKEN'])
    assert.equal(claude[key], undefined, key);
  const acp = harnessEnv('acp', base);
  for (const key of [
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'CODEX_API_KEY',
    'GEMINI_API_KEY',
    'AGENTPIPE_SERVE_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
  ]) {
    assert.equal(acp[key], undefined, `acp: ${key}`);
  }
  assert.equal(acp.PATH, '/usr/bin');
  assert.equal(
    harnessEnv('gemini', base, 'from-flag').GEMINI_API_KEY,
    'from-flag',
    "--api-key goes to the CLI's own variable",
  );
});
