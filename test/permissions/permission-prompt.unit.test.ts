/**
 * The details of a permission prompt (tools/permission-prompt.ts): Claude Code 2.1.197's Bash
 * prefix rule (its word tests and lists, ported) and the other tools' suggestions. The
 * side-by-side test (test/compat/can-use-tool-side.test.ts) holds the common cases beside the
 * real Claude Code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandPrefix, permissionPromptInfo } from '../../src/tools/permission-prompt.ts';

test('Bash prefix: the command and a plain-word subcommand, else none (the exact command is suggested)', () => {
  assert.equal(commandPrefix('npm test -- --grep foo'), 'npm test');
  assert.equal(commandPrefix('git commit -m x'), 'git commit');
  assert.equal(commandPrefix('NODE_ENV=test npm run build'), 'npm run', 'a known variable is skipped');
  assert.equal(commandPrefix('SECRET=1 npm run build'), null, 'any other assignment: no prefix');
  assert.equal(commandPrefix('sudo apt install x'), null, 'a command that runs another one: no prefix');
  assert.equal(commandPrefix('/usr/bin/env node x'), null);
  assert.equal(commandPrefix('cat /etc/hostname'), null, 'the second word is not a subcommand');
  assert.equal(commandPrefix('ls -la'), null);
  assert.equal(commandPrefix('make'), null);
});

test('suggestions: a Bash rule, acceptEdits for an edit in the folder only, a WebFetch domain rule', () => {
  const rule = (toolName: string, ruleContent: string) => [
    { type: 'addRules', rules: [{ toolName, ruleContent }], behavior: 'allow', destination: 'localSettings' },
  ];
  assert.deepEqual(permissionPromptInfo('Bash', { command: 'make -j4' }, '/w').suggestions, rule('Bash', 'make -j4'));
  assert.deepEqual(
    permissionPromptInfo('Bash', { command: 'cargo build --release' }, '/w').suggestions,
    rule('Bash', 'cargo build *'),
  );
  const inside = permissionPromptInfo('Write', { file_path: '/w/src/a.ts', content: '' }, '/w');
  assert.deepEqual(inside.suggestions, [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]);
  assert.equal(inside.description, 'src/a.ts');
  const outside = permissionPromptInfo('Edit', { file_path: '/elsewhere/a.ts' }, '/w');
  assert.deepEqual([outside.suggestions, outside.description], [[], '/elsewhere/a.ts']);
  assert.deepEqual(
    permissionPromptInfo('WebFetch', { url: 'https://docs.example.com/x', prompt: '' }, '/w').suggestions,
    rule('WebFetch', 'domain:docs.example.com'),
  );
  assert.deepEqual(permissionPromptInfo('mcp__s__t', {}, '/w'), { suggestions: [], displayName: 'mcp__s__t' });
});
