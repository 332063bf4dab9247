/**
 * The details of a permission prompt (tools/permission-prompt.ts): Claude Code 2.1.197's Bash
 * prefix rule (its word tests and lists, ported) and the other tools' suggestions; the written
 * path of a Bash line and a Read outside the folders as Claude Code 2.1.332 shows them. The
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

test('suggestions: a Bash rule, acceptEdits for an edit in the folder only, a WebFetch domain rule', async () => {
  const rule = (toolName: string, ruleContent: string) => [
    { type: 'addRules', rules: [{ toolName, ruleContent }], behavior: 'allow', destination: 'localSettings' },
  ];
  assert.deepEqual(
    (await permissionPromptInfo('Bash', { command: 'make -j4' }, '/w')).suggestions,
    rule('Bash', 'make -j4'),
  );
  assert.deepEqual(
    (await permissionPromptInfo('Bash', { command: 'cargo build --release' }, '/w')).suggestions,
    rule('Bash', 'cargo build *'),
  );
  const inside = await permissionPromptInfo('Write', { file_path: '/w/src/a.ts', content: '' }, '/w');
  assert.deepEqual(inside.suggestions, [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]);
  assert.equal(inside.description, 'src/a.ts');
  const outside = await permissionPromptInfo('Edit', { file_path: '/elsewhere/a.ts' }, '/w');
  assert.deepEqual([outside.suggestions, outside.description], [[], '/elsewhere/a.ts']);
  assert.deepEqual(
    (await permissionPromptInfo('WebFetch', { url: 'https://docs.example.com/x', prompt: '' }, '/w')).suggestions,
    rule('WebFetch', 'domain:docs.example.com'),
  );
  assert.deepEqual(await permissionPromptInfo('mcp__s__t', {}, '/w'), { suggestions: [], displayName: 'mcp__s__t' });
});

test('a Bash line that writes a path: that path, its folder and (for a program) acceptEdits, no reason', async () => {
  const rule = (ruleContent: string) => ({
    type: 'addRules',
    rules: [{ toolName: 'Bash', ruleContent }],
    behavior: 'allow',
    destination: 'localSettings',
  });
  const folder = (dir: string) => ({ type: 'addDirectories', directories: [dir], destination: 'session' });
  const acceptEdits = { type: 'setMode', mode: 'acceptEdits', destination: 'session' };
  const touch = await permissionPromptInfo('Bash', { command: 'touch made.txt' }, '/w');
  assert.deepEqual(touch, {
    suggestions: [rule('touch made.txt'), folder('/w'), acceptEdits],
    displayName: 'Bash',
    description: 'touch made.txt',
    blockedPath: '/w/made.txt',
  });
  const copy = await permissionPromptInfo('Bash', { command: 'cp -r a.txt /tmp/b' }, '/w');
  assert.equal(copy.blockedPath, '/w/a.txt', 'cp: its first path, as Claude Code names it');
  const mkdir = await permissionPromptInfo('Bash', { command: 'mkdir -p /tmp/x/y' }, '/w');
  assert.deepEqual([mkdir.blockedPath, mkdir.suggestions[1]], ['/tmp/x/y', folder('/tmp/x')]);
  const redirect = await permissionPromptInfo('Bash', { command: 'echo hi > out.txt' }, '/w');
  assert.deepEqual(redirect.suggestions, [rule('echo hi *'), folder('/w')], 'a redirection: no acceptEdits');
  assert.equal(redirect.blockedPath, '/w/out.txt');
  const plain = await permissionPromptInfo('Bash', { command: 'npm test' }, '/w');
  assert.deepEqual(
    [plain.blockedPath, plain.decisionReason, plain.decisionReasonType],
    [undefined, 'This command requires approval', 'other'],
  );
});

test('a Read outside the working folders: why, and a session rule for its folder', async () => {
  const outside = await permissionPromptInfo('Read', { file_path: '/etc/hostname' }, '/w');
  assert.deepEqual(outside, {
    suggestions: [
      {
        type: 'addRules',
        rules: [{ toolName: 'Read', ruleContent: '//etc/**' }],
        behavior: 'allow',
        destination: 'session',
      },
    ],
    displayName: 'Read',
    description: '/etc/hostname',
    decisionReason: 'Path is outside allowed working directories',
    decisionReasonType: 'workingDir',
  });
  const added = await permissionPromptInfo('Read', { file_path: '/etc/hostname' }, '/w', ['/etc']);
  assert.deepEqual(added.suggestions, [], 'an --add-dir folder is a working folder');
});
