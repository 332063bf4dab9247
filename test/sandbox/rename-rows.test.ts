/**
 * Attacker rows against hiding by path (mounts.ts `pinWays`): a hard link to a hidden file, a folder on the way reached
 * through a link, the working folder itself renamed from an `--add-dir` parent. The secret stays unread in each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const bash = (command: string) => ({ tool_calls: [{ name: 'Bash', input: { command } }] });

/** `root/work/sub/.env` (the secret) hidden by `denyRead`; the commands run in `work`, `root` added when `addRoot`. */
async function attack(denyRead: string, commands: string[], prepare = (_work: string) => {}, addRoot = false) {
  const root = tempDir();
  const work = path.join(root, 'work');
  mkdirSync(path.join(work, 'sub'), { recursive: true });
  writeFileSync(path.join(work, 'sub', '.env'), 'SECRET-VALUE');
  prepare(work);
  const home = path.join(root, 'home');
  const settings = JSON.stringify({ sandbox: { filesystem: { denyRead: [denyRead] } } });
  const script = writeScript(root, [...commands.map(bash), { text: 'done' }]);
  const args = ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'];
  const run = await runCli(
    [...args, '--sandbox', 'required', '--settings', settings, ...(addRoot ? ['--add-dir', root] : [])],
    { cwd: work, env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') }, timeoutMs: 60_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  return parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content))
    .join('\n');
}

test('a hard link to a hidden file is not made (another mount): the secret is not read through it', async () => {
  const said = await attack('./sub/.env', ['ln sub/.env x 2>&1; echo "ln=$?"', 'cat x 2>&1; cat sub/.env 2>&1']);
  assert.match(said, /ln=1/, said);
  assert.doesNotMatch(said, /SECRET-VALUE/, said);
});

test('the folder on the way is reached through a link: where it leads is pinned too', async () => {
  const said = await attack(
    './conf/.env',
    ['mv sub s2 2>&1; echo "moved=$?"', 'cat s2/.env conf/.env sub/.env 2>&1'],
    (work) => symlinkSync('sub', path.join(work, 'conf')),
  );
  assert.match(said, /moved=1/, said);
  assert.doesNotMatch(said, /SECRET-VALUE/, said);
});

test('the working folder itself is not renamed from its --add-dir parent for the next command to read', async () => {
  const said = await attack(
    './sub/.env',
    ['cd .. && mv work w2 2>&1; echo "moved=$?"', 'cat ../w2/sub/.env sub/.env 2>&1'],
    () => {},
    true,
  );
  assert.match(said, /moved=1/, said);
  assert.doesNotMatch(said, /SECRET-VALUE/, said);
});

test('denyRead names a link to a relative link: re-pointing the inner one, then the outer, unhides nothing', async () => {
  const said = await attack(
    './alias/.env',
    ['ln -sfn /tmp inner && ln -sfn /usr alias && echo repointed', 'cat sub/.env alias/.env inner/.env 2>&1'],
    (work) => {
      symlinkSync('sub', path.join(work, 'inner'));
      symlinkSync('inner', path.join(work, 'alias'));
    },
  );
  assert.match(said, /repointed/, said);
  assert.doesNotMatch(said, /SECRET-VALUE/, said);
});

test('no mount is undone or made inside (no user namespace, no capability): the hidden file stays hidden', async () => {
  const lift = 'umount sub/.env 2>&1; unshare -rm sh -c "umount sub/.env; cat sub/.env" 2>&1; echo "tried=$?"';
  const bindOver = 'mount --bind /etc sub 2>&1; mkdir -p ../other 2>&1; mv sub ../other/ 2>&1; echo "moved=$?"';
  const said = await attack('./sub/.env', [lift, bindOver, 'cat sub/.env ../other/sub/.env 2>&1'], () => {}, true);
  assert.match(said, /tried=/, said);
  assert.match(said, /moved=1/, said);
  assert.doesNotMatch(said, /SECRET-VALUE/, said);
});
