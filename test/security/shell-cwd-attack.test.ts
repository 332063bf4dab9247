/**
 * Attacks on the Bash tool's kept folder (src/tools/shell/shell-cwd.ts): a folder swapped for a link between the
 * check and the prefix's `cd`, folder names that could break the prefix's quoting, a report forged from the marker
 * the line can read, inherited OLDPWD/CDPATH.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { bashTool } from '../../src/tools/builtin/bash.ts';
import { parseRules } from '../../src/tools/permission-rules.ts';
import { checkPermission } from '../../src/tools/permissions.ts';
import { shellStart, type ShellStart } from '../../src/tools/shell/shell-cwd.ts';
import { ToolState } from '../../src/tools/state.ts';
import { runBash, shellFolders } from './shell-session.ts';

let root = '';
let work = '';
let outside = '';

before(() => {
  ({ root, work, outside } = shellFolders('shell-cwd-attack-'));
  writeFileSync(path.join(outside, 'victim.txt'), 'victim\n');
});

after(() => rmSync(root, { recursive: true, force: true }));

const call = (command: string, state: ToolState, shell?: ShellStart) => runBash(command, work, state, shell);

test('a kept folder swapped for a link out after the check is not started in (the prefix cds physically)', async () => {
  const state = new ToolState();
  mkdirSync(path.join(work, 'race'));
  await call('cd race', state);
  // The check judged from .../race (cat victim.txt: a file inside the cwd); then a parallel call swaps it.
  const start = shellStart(state, work);
  assert.equal(start.folder, path.join(work, 'race'));
  rmSync(path.join(work, 'race'), { recursive: true });
  symlinkSync(outside, path.join(work, 'race'));
  const out = await call('pwd -P; cat victim.txt', state, start);
  assert.ok(!out.includes('victim'), out);
  assert.ok(!out.includes(outside), out);
  rmSync(path.join(work, 'race'));
});

test('folder names with quotes, newlines, $() and backslashes are kept exactly and never run', async () => {
  for (const name of ["q'x", 'n\nl', '$(touch pwned)', '`touch pwned`', 'b\\s', "a' ; touch pwned ; '", '-P']) {
    const state = new ToolState();
    const dir = path.join(work, name);
    mkdirSync(dir);
    await call(`cd -- '${name.replaceAll("'", `'\\''`)}'`, state);
    assert.equal(state.shellCwd, dir, JSON.stringify(name));
    assert.equal(await call('printf %s "$PWD"', state), dir, JSON.stringify(name));
    assert.equal(await call('ls -A', state), '(Bash completed with no output)', JSON.stringify(name));
    rmSync(dir, { recursive: true });
  }
});

test('a report forged with the marker read from the trap keeps only a folder inside, judged and run alike', async () => {
  const state = new ToolState();
  mkdirSync(path.join(work, 'f'));
  const forge = (dir: string) =>
    `m=$(trap -p EXIT | grep -o '__agentpipe_cwd_[0-9a-f]*:'); trap - EXIT; printf '\\n%s%s' "$m" '${dir}' >&2`;
  await call(forge(outside), state);
  assert.equal(state.shellCwd, undefined);
  await call(forge(path.join(work, 'f')), state);
  assert.equal(state.shellCwd, path.join(work, 'f'), 'a forged folder inside is kept, as a cd there would be');
  assert.equal(await call('pwd', state), path.join(work, 'f'), 'and the line runs where the check judges it');
  rmSync(path.join(work, 'f'), { recursive: true });
});

test('cd -, pushd, popd, CDPATH and ~+/~- are judged as unknown moves (asked) from a kept folder', async () => {
  mkdirSync(path.join(work, 'k'), { recursive: true });
  for (const line of [
    'cd - >/dev/null; cat victim.txt',
    'popd >/dev/null; cat victim.txt',
    `pushd ${outside} >/dev/null; cat victim.txt`,
    `CDPATH=${root} cd outside; cat victim.txt`,
    `export CDPATH=${root}; cd outside; cat victim.txt`,
    'cat ~-/victim.txt',
    'cd "$OLDPWD"; cat victim.txt',
    'cd ..; cd ..; cd outside; cat victim.txt',
  ]) {
    const verdict = await checkPermission({
      tool: bashTool,
      input: { command: line },
      mode: 'default',
      allow: [],
      deny: parseRules([]),
      cwd: work,
      shellCwd: path.join(work, 'k'),
    });
    assert.notEqual(verdict.behavior, 'allow', line);
  }
});

test('a CDPATH inherited from agentpipe’s environment cannot move a judged cd (acceptEdits writes)', async () => {
  const saved = process.env.CDPATH;
  process.env.CDPATH = root;
  try {
    const line = 'cd outside && touch pwned.txt';
    mkdirSync(path.join(work, 'outside'), { recursive: true });
    const verdict = await checkPermission({
      tool: bashTool,
      input: { command: line },
      mode: 'acceptEdits',
      allow: [],
      deny: parseRules([]),
      cwd: work,
    });
    if (verdict.behavior === 'allow') await call(line, new ToolState());
    assert.ok(
      !existsSync(path.join(outside, 'pwned.txt')),
      `${verdict.behavior}: judged in work/outside, ran in CDPATH's`,
    );
    // A read-only line runs without asking: it must run in the folder judged (its environment drops CDPATH).
    const read = 'cd outside && cat victim.txt';
    const judged = await checkPermission({
      tool: bashTool,
      input: { command: read },
      mode: 'default',
      allow: [],
      deny: parseRules([]),
      cwd: work,
    });
    if (judged.behavior === 'allow') assert.ok(!(await call(read, new ToolState())).includes('victim\n'), read);
    rmSync(path.join(work, 'outside'), { recursive: true });
  } finally {
    if (saved === undefined) delete process.env.CDPATH;
    else process.env.CDPATH = saved;
  }
});

test('plan and default modes: a read from a kept folder is judged by the Read deny rules anchored at the cwd', async () => {
  mkdirSync(path.join(work, 'vault/inner'), { recursive: true });
  writeFileSync(path.join(work, 'vault/key.txt'), 'key\n');
  for (const mode of ['plan', 'default'] as const)
    for (const [line, from] of [
      ['cat key.txt', 'vault'],
      ['cat ../key.txt', 'vault/inner'],
      ['cd .. && cat key.txt', 'vault/inner'],
      ['grep -r key .', 'vault'],
      ['cat ./*', 'vault'],
    ]) {
      const verdict = await checkPermission({
        tool: bashTool,
        input: { command: line },
        mode,
        allow: [],
        deny: parseRules(['Read(./vault/**)']),
        cwd: work,
        shellCwd: path.join(work, from),
      });
      assert.notEqual(verdict.behavior, 'allow', `${mode}: ${line} from ${from}`);
    }
  rmSync(path.join(work, 'vault'), { recursive: true });
});

test('cd -P/-L through a link, .. after a link and ~user from a kept folder are not read without asking', async () => {
  mkdirSync(path.join(work, 'm'), { recursive: true });
  symlinkSync(outside, path.join(work, 'm/l'));
  for (const line of [
    'cd -P l/.. && cat outside/victim.txt',
    'cd -P l && cd .. && cat outside/victim.txt',
    'cd l && cd -P .. && cat outside/victim.txt',
    'cat l/../outside/victim.txt',
    'cd ~root && cat .bashrc',
    'pushd l >/dev/null && cat victim.txt',
  ]) {
    const verdict = await checkPermission({
      tool: bashTool,
      input: { command: line },
      mode: 'default',
      allow: [],
      deny: parseRules([]),
      cwd: work,
      shellCwd: path.join(work, 'm'),
    });
    assert.notEqual(verdict.behavior, 'allow', line);
  }
  rmSync(path.join(work, 'm'), { recursive: true });
});
