/**
 * Attacker rows for the removal of the session's temp folder at exit (src/sandbox/temp-sweep.ts): a sandboxed command
 * writes its TMPDIR, and may leave there what the removal cannot go through as it is (a folder it may not read or
 * write, a name with a newline). The folder must be gone all the same when agentpipe ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

for (const [label, command] of [
  ['a folder it may not read', 'mkdir -p "$TMPDIR/a/b" && touch "$TMPDIR/a/b/f" && chmod 000 "$TMPDIR/a/b"'],
  ['a folder it may not write', 'mkdir -p "$TMPDIR/a" && touch "$TMPDIR/a/f" && chmod 500 "$TMPDIR/a"'],
  ['names with a newline and a carriage return', 'mkdir -p "$TMPDIR/a\n/b\r" && touch "$TMPDIR/a\n/b\r/-- f\n"'],
] as const) {
  test(`the session's temp folder is removed at exit though a command left ${label} in it`, async () => {
    const root = tempDir();
    const [work, home, tmp] = [path.join(root, 'work'), path.join(root, 'home'), path.join(root, 'tmp')];
    for (const dir of [work, tmp]) mkdirSync(dir);
    mkdirSync(path.join(home, '.agentpipe'), { recursive: true });
    const script = writeScript(root, [
      { tool_calls: [{ name: 'Bash', input: { command: `${command} && echo LEFT` } }] },
      { text: 'done' },
    ]);
    const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
      cwd: work,
      env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe'), TMPDIR: tmp },
      timeoutMs: 60_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /LEFT/, 'the command did not leave it');
    assert.deepEqual(
      readdirSync(tmp).filter((name) => name.startsWith('agentpipe-sbx-')),
      [],
    );
  });
}

/**
 * The same removal as a user other than root (as the tests may run as root, whom modes do not stop): the process made
 * its folder unreadable and unwritable, and links a folder of its own, read-only, whose mode must stay as it is.
 */
const AS_USER = `
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
const [sweep, root] = process.argv.slice(1);
const { removeTempFolder } = await import(sweep);
const [folder, outside] = [root + '/agentpipe-sbx-left', root + '/outside'];
mkdirSync(outside);
writeFileSync(outside + '/keep', '');
chmodSync(outside, 0o555);
mkdirSync(folder + '/a/b', { recursive: true });
writeFileSync(folder + '/a/b/x', '');
chmodSync(folder + '/a/b', 0o000);
mkdirSync(folder + '/c');
writeFileSync(folder + '/c/y', '');
chmodSync(folder + '/c', 0o500);
symlinkSync(outside, folder + '/link');
chmodSync(folder, 0o500);
const removed = removeTempFolder(folder);
const mode = (statSync(outside).mode & 0o777).toString(8);
process.stdout.write(JSON.stringify({ removed, left: existsSync(folder), outside: readdirSync(outside), mode }));
`;

test("a folder a command took its own access away from is removed, as a user other than root; links' targets keep their mode", async () => {
  const root = tempDir();
  chmodSync(root, 0o777);
  const sweep = pathToFileURL(path.resolve('dist/sandbox/temp-sweep.js')).href;
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const child = spawn(process.execPath, ['--input-type=module', '-e', AS_USER, sweep, root], {
    ...user,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let said = '';
  child.stdout.on('data', (chunk: Buffer) => (said += String(chunk)));
  const [code] = await once(child, 'close');
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(said), { removed: true, left: false, outside: ['keep'], mode: '555' });
});
