/**
 * The sandbox hides what `Read(...)` deny rules protect from the commands the model runs: a program
 * the permission check lets through in bypassPermissions (a script file it cannot see into) reads
 * nothing where `.env` is (an empty file it may not open), and an empty folder where `secret/` is,
 * while the rest of the working folder stays readable and writable and the protected files stay as
 * they were.
 */
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readDeniedPaths } from '../../src/sandbox/deny-read.ts';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

/** A working folder with `.env`, `secret/a`, `config/key.pem`, a plain file, and a script that prints them all. */
function world() {
  const root = tempDir();
  const work = path.join(root, 'work');
  const home = path.join(root, 'home');
  mkdirSync(path.join(work, 'secret'), { recursive: true });
  mkdirSync(path.join(work, 'config'), { recursive: true });
  mkdirSync(home);
  writeFileSync(path.join(work, '.env'), 'SECRET=hunter2\n');
  writeFileSync(path.join(work, 'secret/a'), 'top secret\n');
  writeFileSync(path.join(work, 'config/key.pem'), 'PRIVATE KEY\n');
  writeFileSync(path.join(work, 'a.txt'), 'plain\n');
  writeFileSync(
    path.join(work, 'show.py'),
    [
      'import os',
      "for f in ['.env', 'secret/a', 'config/key.pem', 'a.txt']:",
      '    try:',
      '        print(f, repr(open(f).read()))',
      '    except OSError as e:',
      "        print(f, 'error', e.strerror)",
      "print('secret/', sorted(os.listdir('secret')))",
      "open('made.txt', 'w').write('ok')",
    ].join('\n'),
  );
  return { root, work, env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') } };
}

async function run(w: ReturnType<typeof world>, sandbox: string, deny: string[]) {
  const script = writeScript(w.root, [
    { tool_calls: [{ name: 'Bash', id: 'show', input: { command: 'python3 show.py' } }] },
    { text: 'done' },
  ]);
  const out = await runCli(
    [
      '-p',
      'go',
      ...scriptedStreamArgs(script),
      '--permission-mode',
      'bypassPermissions',
      '--sandbox',
      sandbox,
      '--disallowedTools',
      ...deny,
    ],
    { cwd: w.work, env: w.env, timeoutMs: 60_000 },
  );
  assert.equal(out.code, 0, out.stderr);
  const lines = parseLines(out.stdout);
  const result = lines
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content))
    .join('');
  assert.equal(lines.at(-1)?.type, 'result');
  return result;
}

const RULES = ['Read(./.env)', 'Read(./secret/**)', 'Read(./config/*.pem)'];

test('with the sandbox required, a Read deny rule hides its file and folder from a command the check lets run', async () => {
  const w = world();
  const shown = await run(w, 'required', RULES);
  // A hidden file is /dev/null bound read-only: on a nodev mount it cannot be opened at all, else it reads empty.
  assert.match(shown, /\.env ('{2}|error Permission denied)/, 'the file reads empty or not at all');
  assert.match(shown, /config\/key\.pem ('{2}|error Permission denied)/, 'a glob rule hides what it matches');
  assert.match(shown, /secret\/a error/, 'the folder is empty');
  assert.match(shown, /secret\/ \[\]/);
  assert.match(shown, /a\.txt 'plain\\\\n'/, 'the rest stays readable');
  assert.doesNotMatch(shown, /hunter2|top secret|PRIVATE KEY/);
  assert.equal(readFileSync(path.join(w.work, 'made.txt'), 'utf8'), 'ok', 'and writable');
  assert.equal(readFileSync(path.join(w.work, '.env'), 'utf8'), 'SECRET=hunter2\n', 'the file itself is kept');
  assert.equal(readFileSync(path.join(w.work, 'secret/a'), 'utf8'), 'top secret\n');
});

test('with the sandbox off the same script reads them (the sandbox, not the check, hides them)', async () => {
  const w = world();
  const shown = await run(w, 'off', RULES);
  assert.match(shown, /hunter2/);
});

test('readDeniedPaths: paths, folders, globs and home', () => {
  const w = world();
  const home = w.env.HOME;
  assert.deepEqual(
    readDeniedPaths(['./.env', 'secret/**', './config/*.pem', '~/.ssh/**', '//etc/x', '*'], w.work, home),
    [
      path.join(w.work, '.env'),
      path.join(w.work, 'secret'),
      path.join(w.work, 'config/key.pem'),
      path.join(home, '.ssh'),
      '/etc/x',
    ],
  );
});

/** A repository in `w.work` with `.env` committed (or left out by .gitignore), and a script that reads it from git. */
function committed(w: ReturnType<typeof world>, tracked: boolean) {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd: w.work, stdio: 'pipe' });
  if (!tracked) writeFileSync(path.join(w.work, '.gitignore'), '.env\n');
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  writeFileSync(
    path.join(w.work, 'show.py'),
    "import subprocess\nsubprocess.run(['sh', '-c', 'git show HEAD:.env; git log --format=LOG:%s 2>&1'])\n",
  );
}

test('a committed copy of a denied file: the object store is hidden too (git show HEAD:.env from a script)', async () => {
  const w = world();
  committed(w, true);
  const shown = await run(w, 'required', ['Read(./.env)']);
  assert.doesNotMatch(shown, /hunter2/, 'not from the objects');
  assert.doesNotMatch(shown, /LOG:first/, 'git cannot read history in the sandbox then (the cost, docs/security.md)');
  const untracked = world();
  committed(untracked, false);
  const history = await run(untracked, 'required', ['Read(./.env)']);
  assert.match(history, /LOG:first/, 'a denied file git does not track leaves the history readable');
  assert.doesNotMatch(history, /hunter2/);
});
