/**
 * An attacker's row: agentpipe started in the home folder (`cd ~ && agentpipe …`, or `--add-dir ~`).
 * The working folder then holds the credential stores and agentpipe's home; being writable must not
 * make them visible. Before, a bypassPermissions Bash call (or any approved command) read
 * `~/.ssh`, `~/.codex/auth.json` and the transcripts, and appended to `~/.ssh/authorized_keys`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runSandboxedCommands } from '../helpers/agent-run.ts';
import { tempDir } from '../helpers/workspace.ts';

test('a home folder that is the working folder: its credential stores and agentpipe home stay hidden', async () => {
  const home = path.join(tempDir(), 'home');
  for (const dir of ['.ssh', '.codex', '.agentpipe/projects']) mkdirSync(path.join(home, dir), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'SSH-SECRET\n');
  writeFileSync(path.join(home, '.codex', 'auth.json'), 'CODEX-TOKEN\n');
  writeFileSync(path.join(home, '.agentpipe', 'projects', 'old.jsonl'), 'TRANSCRIPT\n');
  const commands = [
    'cat ~/.ssh/id_ed25519 ~/.codex/auth.json ~/.agentpipe/projects/old.jsonl',
    'echo ssh-ed25519 EVIL >> ~/.ssh/authorized_keys',
    'echo ok > notes.txt && cat notes.txt',
  ];
  const { results } = await runSandboxedCommands(home, home, commands);
  assert.equal(results.length, commands.length);
  assert.doesNotMatch(results[0]!, /SSH-SECRET|CODEX-TOKEN|TRANSCRIPT/);
  assert.match(results[1]!, /Read-only file system/);
  assert.equal(existsSync(path.join(home, '.ssh', 'authorized_keys')), false);
  assert.match(results[2]!, /ok/, 'the rest of the home folder stays writable');
  assert.equal(readFileSync(path.join(home, 'notes.txt'), 'utf8'), 'ok\n');
});

test('a home folder that is the working folder: a folder holding a credential store is not moved aside', async () => {
  const home = path.join(tempDir(), 'home');
  mkdirSync(path.join(home, '.config', 'gh'), { recursive: true });
  writeFileSync(path.join(home, '.config', 'gh', 'hosts.yml'), 'GH-TOKEN\n');
  // `.config/gh` is hidden by its path: were `.config` renamed, the next command would not hide it.
  const commands = ['mv .config c2 2>&1; echo "moved=$?"', 'cat c2/gh/hosts.yml .config/gh/hosts.yml 2>&1'];
  const { said } = await runSandboxedCommands(home, home, commands);
  assert.match(said, /moved=[1-9]/, said);
  assert.doesNotMatch(said, /GH-TOKEN/, said);
  assert.equal(readFileSync(path.join(home, '.config', 'gh', 'hosts.yml'), 'utf8'), 'GH-TOKEN\n');
});
