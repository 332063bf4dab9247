/**
 * Claude Code's sandbox escapes, made safe: `excludedCommands` (a line every command of which is
 * listed runs outside once a rule, the mode or an answer approved it; a line the check let through
 * as read-only stays in the read-only sandbox; anything but plain commands stays in), Bash's
 * `dangerouslyDisableSandbox` (only an answer to that very call, never a rule, mode or hook;
 * ignored under allowUnsandboxedCommands: false) and `autoAllowBashIfSandboxed` (what would be
 * asked runs in the workspace sandbox, unless a safety check asked). In process on the verdicts,
 * then through the real CLI and a session with a permission callback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { bashTool } from '../../src/tools/builtin/bash.ts';
import { checkPermission, parseRules } from '../../src/tools/permissions.ts';
import type { PermissionMode } from '../../src/messages/types.ts';
import type { ShellSandbox } from '../../src/sandbox/config.ts';
import { ofType, runInProcess, runScripted, toolResults } from '../helpers/agent-run.ts';
import { tempDir } from '../helpers/workspace.ts';

const SANDBOX: ShellSandbox = { confining: true, autoAllow: false, excluded: [], allowUnsandboxed: true };

async function verdict(
  command: string,
  o: { mode?: PermissionMode; allow?: string[]; deny?: string[]; sandbox?: Partial<ShellSandbox>; input?: object } = {},
) {
  const v = await checkPermission({
    tool: bashTool,
    input: { command, ...o.input },
    mode: o.mode ?? 'default',
    allow: parseRules(o.allow),
    deny: parseRules(o.deny),
    cwd: process.cwd(),
    sandbox: { ...SANDBOX, ...o.sandbox },
  });
  if (v.behavior === 'allow') return `allow ${v.sandbox}`;
  if (v.behavior === 'ask') return v.unsandboxed ? `ask ${v.unsandboxed}` : 'ask';
  return 'deny';
}

test('excludedCommands: approved lines of listed commands only run outside; read-only ones stay in', async () => {
  const excluded = { sandbox: { excluded: ['docker', 'npm run *', 'Bash(make:*)'] } };
  assert.equal(await verdict('docker ps', { ...excluded, mode: 'bypassPermissions' }), 'allow unsandboxed');
  assert.equal(await verdict('docker ps 2>&1 | docker logs x', { ...excluded, allow: ['Bash'] }), 'allow unsandboxed');
  assert.equal(
    await verdict('npm run build && make all', { ...excluded, mode: 'bypassPermissions' }),
    'allow unsandboxed',
  );
  assert.equal(await verdict('docker build .', excluded), 'ask excluded', 'asked: approved, it runs outside');
  // Nobody approved a line the check let through as read-only: the read-only sandbox still holds it.
  assert.equal(await verdict('ls -la', { sandbox: { excluded: ['ls'] } }), 'allow read-only');
  // Not plain commands, or not all listed: in the sandbox whatever the entries.
  for (const line of [
    'docker ps \r# ; touch PWNED',
    'docker ps; touch PWNED',
    'cd sub && docker ps',
    'docker ps > out.txt',
    'docker ps >/dev/null',
    'docker $(touch PWNED)',
    'docker `id`',
    'FOO=1 docker ps',
    'docker rm *',
    'doc\\\nker ps',
    'npm test',
  ])
    assert.equal(await verdict(line, { ...excluded, mode: 'bypassPermissions' }), 'allow workspace', line);
  assert.equal(await verdict('docker ps', { ...excluded, mode: 'plan' }), 'deny', 'plan mode: read-only only');
  assert.equal(
    await verdict('docker ps', { ...excluded, deny: ['Bash(docker:*)'], mode: 'bypassPermissions' }),
    'deny',
  );
  assert.equal(
    await verdict('docker ps', { sandbox: { excluded: ['docker'], confining: false }, mode: 'bypassPermissions' }),
    'allow workspace',
    'no sandbox here: nothing to leave',
  );
});

test('dangerouslyDisableSandbox always asks, whatever rules and mode say; allowUnsandboxedCommands: false ignores it', async () => {
  const out = { input: { dangerouslyDisableSandbox: true } };
  assert.equal(await verdict('touch x', { ...out, mode: 'bypassPermissions' }), 'ask requested');
  assert.equal(await verdict('touch x', { ...out, allow: ['Bash'] }), 'ask requested');
  assert.equal(await verdict('ls', out), 'ask requested', 'not even a read-only line');
  assert.equal(await verdict('ls', { ...out, mode: 'plan' }), 'deny');
  assert.equal(await verdict('touch x', { ...out, mode: 'dontAsk' }), 'deny');
  assert.equal(await verdict('touch x', { ...out, deny: ['Bash(touch:*)'] }), 'deny');
  assert.equal(
    await verdict('touch x', { ...out, mode: 'bypassPermissions', sandbox: { allowUnsandboxed: false } }),
    'allow workspace',
  );
});

test('autoAllowBashIfSandboxed: what would be asked runs in the workspace sandbox, not what a safety check asks', async () => {
  const auto = { sandbox: { autoAllow: true } };
  assert.equal(await verdict('npm install', auto), 'allow workspace');
  assert.equal(await verdict('npm install', { ...auto, mode: 'dontAsk' }), 'allow workspace');
  assert.equal(await verdict('cat a.txt', auto), 'allow read-only');
  assert.equal(await verdict('eval "$X"', { ...auto, deny: ['Bash(rm:*)'] }), 'ask', 'what it runs cannot be known');
  assert.equal(await verdict('npm install', { ...auto, mode: 'plan' }), 'deny');
  assert.equal(await verdict('rm -rf x', { ...auto, deny: ['Bash(rm:*)'] }), 'deny');
  assert.equal(await verdict('npm install', { sandbox: { autoAllow: true, confining: false } }), 'ask');
  assert.equal(await verdict('docker ps', { sandbox: { autoAllow: true, excluded: ['docker'] } }), 'ask excluded');
});

/** A working folder and a folder outside it. */
function world() {
  const root = tempDir();
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  mkdirSync(work);
  mkdirSync(outside);
  return { work, outside };
}

const bash = (command: string, extra: object = {}) => ({
  tool_calls: [{ name: 'Bash', input: { command, ...extra } }],
});

test('CLI: an excluded line runs outside the sandbox, the rest stays in; an unsandboxed call nobody approved is refused', async () => {
  const w = world();
  const settings = { sandbox: { excludedCommands: ['touch'] } };
  const run = await runScripted(
    w.work,
    [
      bash(`touch ${w.outside}/excluded.txt`),
      bash(`echo x > ${w.outside}/redirect.txt; mkdir ${w.outside}/made`),
      bash(`mkdir ${w.outside}/asked`, { dangerouslyDisableSandbox: true }),
      { text: 'done' },
    ],
    ['--permission-mode', 'bypassPermissions', '--settings', JSON.stringify(settings)],
    { timeoutMs: 60_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(existsSync(path.join(w.outside, 'excluded.txt')), true, 'the excluded line ran outside');
  assert.equal(existsSync(path.join(w.outside, 'redirect.txt')), false);
  assert.equal(existsSync(path.join(w.outside, 'made')), false, 'a line not excluded stayed in');
  assert.equal(existsSync(path.join(w.outside, 'asked')), false, 'nobody could approve the escape');
  const result = ofType(run.lines, 'result')[0]!;
  assert.equal(result.permission_denials.length, 1);
  assert.equal(result.permission_denials[0].tool_input.dangerouslyDisableSandbox, true);
});

test('session: the permission callback approving dangerouslyDisableSandbox runs that call outside; a hook allow does not', async () => {
  const w = world();
  const asked: Array<Record<string, unknown>> = [];
  const lines = await runInProcess(
    [
      bash(`mkdir ${w.outside}/approved`, { dangerouslyDisableSandbox: true }),
      bash(`mkdir ${w.outside}/sandboxed`),
      { text: 'done' },
    ],
    {
      cwd: w.work,
      permissionMode: 'bypassPermissions',
      canUseTool: async (_name, input) => {
        asked.push(input);
        return { behavior: 'allow', updatedInput: input };
      },
    },
  );
  assert.equal(asked.length, 1, 'only the escape was asked about (bypassPermissions ran the other)');
  assert.equal(existsSync(path.join(w.outside, 'approved')), true);
  assert.equal(existsSync(path.join(w.outside, 'sandboxed')), false);
  assert.equal([...toolResults(lines).values()].length, 2);
  // A PreToolUse hook that allows everything does not approve an escape: the callback still decides.
  const allowAll = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } });
  const denied: string[] = [];
  const hooked = await runInProcess(
    [
      bash('mkdir hook-allowed'),
      bash(`mkdir ${w.outside}/hooked`, { dangerouslyDisableSandbox: true }),
      { text: 'done' },
    ],
    {
      cwd: w.work,
      settings: {
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo '${allowAll}'` }] }] },
      },
      canUseTool: async (_name, input) => {
        denied.push(String(input.command));
        return { behavior: 'deny', message: 'no escapes' };
      },
    },
  );
  assert.equal(existsSync(path.join(w.work, 'hook-allowed')), true, 'the hook allowed the plain call');
  assert.deepEqual(denied, [`mkdir ${w.outside}/hooked`], 'only the escape reached the callback');
  assert.equal(existsSync(path.join(w.outside, 'hooked')), false);
  assert.match(JSON.stringify([...toolResults(hooked).values()][1]), /no escapes/);
});

test('CLI: autoAllowBashIfSandboxed runs what default mode would ask, inside the workspace sandbox', async () => {
  const w = world();
  const settings = { sandbox: { autoAllowBashIfSandboxed: true } };
  const run = await runScripted(
    w.work,
    [bash(`mkdir inside && mkdir ${w.outside}/escaped`), { text: 'done' }],
    ['--settings', JSON.stringify(settings)],
    { timeoutMs: 60_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(ofType(run.lines, 'result')[0]!.permission_denials.length, 0, 'not asked');
  assert.equal(existsSync(path.join(w.work, 'inside')), true);
  assert.equal(existsSync(path.join(w.outside, 'escaped')), false);
});
