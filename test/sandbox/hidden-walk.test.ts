/**
 * Attacker rows against the walk for nested repositories leaving out hidden folders (nested-repos.ts `unseenFolders`):
 * a repository under a `denyRead` folder is not protected by the walk, so no command may reach its git folder some
 * other way: by the folder's own name, or where `denyRead` names it through a link from outside the working folder.
 * Nor may a command rename a folder on the way to a `denyRead` or `denyWrite` path, which the next command mounts by
 * its path (it would find nothing there to hide or keep read-only).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runSandboxedCommands } from '../helpers/agent-run.ts';
import { tempDir } from '../helpers/workspace.ts';

/** `work` (a repository) holding `vault/repo`, a repository of its own; `denyRead` as given, relative to `root`. */
async function attack(denyRead: (root: string, work: string) => string, commands: string[]) {
  const root = tempDir();
  const work = path.join(root, 'work');
  const nested = path.join(work, 'vault', 'repo');
  mkdirSync(nested, { recursive: true });
  execFileSync('git', ['init', '-q', work]);
  execFileSync('git', ['init', '-q', nested]);
  const settings = JSON.stringify({ sandbox: { filesystem: { denyRead: [denyRead(root, work)] } } });
  const { said } = await runSandboxedCommands(work, path.join(root, 'home'), commands, ['--settings', settings]);
  return { said, config: readFileSync(path.join(nested, '.git', 'config'), 'utf8') };
}

const WRITES = [
  'printf "[core]\\n\\tfsmonitor = touch PWNED\\n" >> vault/repo/.git/config 2>&1; echo "by-name=$?"',
  'mv vault v2 2>&1; echo "moved=$?"; printf "[core]\\n\\tfsmonitor = touch PWNED\\n" >> v2/repo/.git/config 2>&1',
  'cp -a vault/. v3 2>&1; rm -rf vault 2>&1; echo "removed=$?"',
  'cd vault/repo 2>&1 && git config core.fsmonitor "touch PWNED" 2>&1; echo "git=$?"',
];

test('a repository under a denyRead folder: no command writes its config', async () => {
  const { said, config } = await attack((_, work) => path.join(work, 'vault'), WRITES);
  assert.doesNotMatch(config, /PWNED/, said);
});

test('denyRead names the folder through a link from outside the working folder', async () => {
  const { said, config } = await attack((root, work) => {
    symlinkSync(path.join(work, 'vault'), path.join(root, 'alias'));
    return path.join(root, 'alias');
  }, WRITES);
  assert.doesNotMatch(config, /PWNED/, said);
});

test('a folder holding a denyRead path is not moved aside for the next command to read it there', async () => {
  const { said } = await attack(
    (_, work) => {
      mkdirSync(path.join(work, 'a'));
      writeFileSync(path.join(work, 'a', 'secret.txt'), 'hunter2\n');
      return path.join(work, 'a', 'secret.txt');
    },
    ['mv a b 2>&1; echo "moved=$?"', 'cat b/secret.txt a/secret.txt 2>&1'],
  );
  assert.doesNotMatch(said, /hunter2/, said);
});

test('a folder holding a denyWrite file is not moved aside for the next command to write it there', async () => {
  const root = tempDir();
  const work = path.join(root, 'work');
  mkdirSync(path.join(work, 'conf'), { recursive: true });
  writeFileSync(path.join(work, 'conf', 'prod.yaml'), 'safe\n');
  const settings = JSON.stringify({ sandbox: { filesystem: { denyWrite: ['./conf/prod.yaml'] } } });
  const commands = ['mv conf c2 2>&1; echo "moved=$?"', 'echo evil > c2/prod.yaml 2>&1', 'mv c2 conf 2>&1'];
  const { said } = await runSandboxedCommands(work, path.join(root, 'home'), commands, ['--settings', settings]);
  assert.equal(readFileSync(path.join(work, 'conf', 'prod.yaml'), 'utf8'), 'safe\n', said);
});

test('denyRead names a link in the working folder: a command re-pointing the link does not unhide the folder', async () => {
  const { said } = await attack(
    (_, work) => {
      writeFileSync(path.join(work, 'vault', 'secret.txt'), 'hunter2\n');
      symlinkSync('vault', path.join(work, 'alias'));
      return path.join(work, 'alias');
    },
    [
      'ln -sfn /tmp alias 2>&1; rm -f alias 2>&1; ln -s /tmp alias 2>&1; echo "relinked=$?"',
      'cat vault/secret.txt 2>&1',
    ],
  );
  assert.doesNotMatch(said, /hunter2/, said);
});
