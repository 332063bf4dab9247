/**
 * A `cd` in one Bash call holds for the next, as in Claude Code 2.1.332 (src/tools/shell/shell-cwd.ts), and must
 * widen nothing: the folder kept is judged again before each call (deleted, swapped for a link), one outside the
 * working folders is dropped with Claude Code's note, and the permission check judges a line's relative paths from
 * the folder it will start in while the rules stay anchored at the session's cwd.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { bashTool } from '../../src/tools/builtin/bash.ts';
import { parseRules } from '../../src/tools/permission-rules.ts';
import { checkPermission, type PermissionVerdict } from '../../src/tools/permissions.ts';
import { shellStart, takeReport } from '../../src/tools/shell/shell-cwd.ts';
import { ToolState } from '../../src/tools/state.ts';
import type { PermissionMode } from '../../src/messages/types.ts';
import { defaultSandbox } from '../../src/sandbox/config.ts';
import { runBash, shellFolders } from './shell-session.ts';

let root = '';
let work = '';
let extra = '';
let outside = '';

before(() => {
  ({ root, work, outside } = shellFolders('shell-cwd-'));
  extra = path.join(root, 'extra');
  for (const dir of [path.join(work, 'd/deep'), path.join(work, 'secret'), path.join(extra, 'e'), outside])
    mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(work, 'a.txt'), 'a\n');
  writeFileSync(path.join(work, 'secret/s.txt'), 'top secret\n');
  writeFileSync(path.join(outside, 'victim.txt'), 'victim\n');
  symlinkSync(outside, path.join(work, 'out-link'));
  // Harmless from the session's folder, a link out from d.
  symlinkSync(path.join(outside, 'victim.txt'), path.join(work, 'd/a.txt'));
  symlinkSync(outside, path.join(work, 'd/l'));
});

after(() => rmSync(root, { recursive: true, force: true }));

const session = (state = new ToolState()) => {
  const run = async (command: string, directories: string[] = []) => {
    return runBash(command, work, state, shellStart(state, work, directories));
  };
  return { state, run };
};

test('a cd stays for the next call; a cd in a subshell, a pipeline or a failing cd does not', async () => {
  const { state, run } = session();
  assert.equal(await run('cd d && pwd'), path.join(work, 'd'));
  assert.equal(await run('pwd'), path.join(work, 'd'));
  assert.equal(await run('cd deep; cd ..; cd deep; pwd'), path.join(work, 'd/deep'));
  assert.equal(await run('cd ../..; pwd'), work);
  assert.equal(state.shellCwd, undefined, 'back in the session folder, nothing is kept');
  assert.equal(await run('(cd d); cd d | cat; cd nope 2>/dev/null; pwd'), work);
  assert.equal(await run('pwd'), work);
  assert.equal(await run('cd d; exit 3'), `Exit code 3`);
  assert.equal(await run('pwd'), path.join(work, 'd'), 'a failing line still leaves the shell where it went');
});

test('a cd out of the working folders goes back, with Claude Code’s note', async () => {
  for (const line of ['cd ..', 'cd /', 'cd /tmp', 'cd', 'cd out-link', 'cd ~', 'cd ../outside']) {
    const { state, run } = session();
    assert.equal(await run(`${line}; true`), `Shell cwd was reset to ${work}`, line);
    assert.equal(state.shellCwd, undefined, line);
    assert.equal(await run('pwd'), work, line);
  }
});

test('an --add-dir folder may be kept', async () => {
  const { run } = session();
  assert.equal(await run(`cd ${extra}/e; pwd`, [extra]), path.join(extra, 'e'));
  assert.equal(await run('pwd', [extra]), path.join(extra, 'e'));
  // Without it (another session's view), it is outside: reset.
  assert.equal(await run('pwd'), `${work}\nShell cwd was reset to ${work}`);
});

test("with no permission check (no judged start), the session's --add-dir folders are still working folders", async () => {
  const state = new ToolState();
  const sandbox = { config: { ...defaultSandbox(work), directories: [extra] }, profile: 'workspace' as const };
  const run = (command: string) => runBash(command, work, state, undefined, { sandbox });
  assert.equal(await run(`cd ${extra}/e; pwd`), path.join(extra, 'e'));
  assert.equal(state.shellCwd, path.join(extra, 'e'));
  assert.equal(await run('pwd'), path.join(extra, 'e'));
  assert.equal(await run(`cd ${outside}; true`), `Shell cwd was reset to ${work}`, 'outside them it still resets');
});

test('a kept folder deleted, or swapped for a link out, between calls is not started in', async () => {
  const gone = session();
  mkdirSync(path.join(work, 'tmpdir'));
  await gone.run('cd tmpdir');
  rmSync(path.join(work, 'tmpdir'), { recursive: true });
  assert.equal(await gone.run('pwd'), `${work}\nShell cwd was reset to ${work}`);

  const swapped = session();
  mkdirSync(path.join(work, 'swap'));
  await swapped.run('cd swap');
  rmSync(path.join(work, 'swap'), { recursive: true });
  symlinkSync('/etc', path.join(work, 'swap'));
  const start = shellStart(swapped.state, work);
  assert.equal(start.folder, work, 'a folder now leading to /etc is judged by its real path');
  assert.equal(start.note, `Shell cwd was reset to ${work}`);
  assert.equal(await swapped.run('pwd'), work);
  rmSync(path.join(work, 'swap'));

  // Swapped for a link to another folder inside: the call starts in (and is judged from) the real path.
  const inside = session();
  mkdirSync(path.join(work, 'swap2'));
  await inside.run('cd swap2');
  rmSync(path.join(work, 'swap2'), { recursive: true });
  symlinkSync(path.join(work, 'd'), path.join(work, 'swap2'));
  assert.equal(shellStart(inside.state, work).folder, path.join(work, 'd'));
  assert.equal(await inside.run('pwd'), path.join(work, 'd'));
  rmSync(path.join(work, 'swap2'));
});

test('the line cannot make the shell keep a folder outside by printing a report', async () => {
  const { state, run } = session();
  // Whatever it prints (its own report, with any marker) is judged like a cd: a folder outside is not kept.
  const out = await run(`trap - EXIT; printf '\\n__agentpipe_cwd_x:${outside}' >&2`);
  assert.equal(state.shellCwd, undefined);
  assert.ok(!out.includes(`Shell cwd`), out);
  assert.deepEqual(takeReport('a\nM:/x\nM:/y', 'M:'), { stderr: 'a\nM:/x', end: '/y' });
});

const check = (command: string, shellCwd: string, mode: PermissionMode = 'acceptEdits'): Promise<PermissionVerdict> =>
  checkPermission({
    tool: bashTool,
    input: { command },
    mode,
    allow: [],
    deny: parseRules(['Read(./secret/**)']),
    cwd: work,
    shellCwd,
  });

test('the check judges relative paths from the folder the line starts in, rules anchored at the cwd', async () => {
  const d = path.join(work, 'd');
  // acceptEdits: from d, a.txt is a link out; from the cwd it is a plain file.
  assert.equal((await check("sed -i 's/a/b/' a.txt", d)).behavior, 'ask');
  assert.equal((await check("sed -i 's/a/b/' a.txt", work)).behavior, 'allow');
  assert.equal((await check('touch ../new.txt', d)).behavior, 'allow');
  assert.equal((await check('rm ../../outside/victim.txt', d)).behavior, 'ask');
  assert.equal((await check('touch l/x', d)).behavior, 'ask');
  // Read-only lines: a path out through d's link asks; the Read deny rule binds a relative read from inside secret.
  assert.equal((await check('cat l/victim.txt', d, 'default')).behavior, 'ask');
  assert.equal((await check('cat ../secret/s.txt', d, 'default')).behavior, 'deny');
  assert.equal((await check('cat s.txt', path.join(work, 'secret'), 'default')).behavior, 'deny');
  assert.equal((await check('cat deep/../../a.txt', d, 'default')).behavior, 'allow');
});
