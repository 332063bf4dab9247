/**
 * Attacker row: two agentpipe processes (two sessions in one folder). Session A's command is running, with the folder's
 * missing protected folders and files covered on mount points; session B starts, runs a command that tries to remove
 * those points (`rmdir`, `rm`), and ends (giving its claims back) while A's command still runs. A's command then
 * tries to create the protected folders on the host. Neither may happen, and when both have ended no point is left
 * in the user's folder (src/sandbox/points.ts). The two commands wait for each other on FIFOs, not on time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const PROTECTED = ['.agentpipe', '.claude', '.mcp.json', '.envrc', '.vscode'];

/** The tool results' text of a run. */
const resultsOf = (stdout: string): string =>
  parseLines(stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content))
    .join('\n');

/** A session's folder with the FIFOs `up` and `go`, a home for agentpipe and a temp root (TMPDIR). */
function folder(): { root: string; work: string; tmp: string; env: Record<string, string> } {
  const root = tempDir();
  const work = path.join(root, 'work');
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  for (const dir of [work, tmp]) mkdirSync(dir);
  mkdirSync(path.join(home, '.agentpipe'), { recursive: true });
  for (const fifo of ['up', 'go']) assert.equal(spawnSync('mkfifo', [path.join(work, fifo)]).status, 0);
  return { root, work, tmp, env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe'), TMPDIR: tmp } };
}

const args = (script: string) => ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'];
const bash = (command: string) => [{ tool_calls: [{ name: 'Bash', input: { command } }] }, { text: 'done' }];
const plant = PROTECTED.map((name) => `mkdir -p ${name}/x 2>/dev/null && echo PLANTED ${name}`).join('; ');

/**
 * What A's command wrote to `up` (it is running then); should A end first, the open is unblocked by opening the FIFO
 * here, and what A said is returned instead.
 */
async function readUp(work: string, ended: Promise<string>): Promise<string> {
  return Promise.race([
    open(path.join(work, 'up'), 'r').then(async (handle) => {
      const text = await handle.readFile('utf8');
      await handle.close();
      return text;
    }),
    ended.then((said) => {
      closeSync(openSync(path.join(work, 'up'), constants.O_WRONLY | constants.O_NONBLOCK));
      return `A ended first: ${said}`;
    }),
  ]);
}

test("a session ending while another session's command runs in the same folder frees none of its points", async () => {
  const { root, work, env } = folder();
  const scriptA = writeScript(root, bash(`echo up > up; read go < go; ${plant}; echo A-ENDED`), 'a.json');
  const scriptB = writeScript(
    root,
    bash(`rmdir .agentpipe .claude .vscode; rm -f .mcp.json .envrc; ${plant}; echo B-ENDED`),
    'b.json',
  );
  const a = runCli(args(scriptA), { cwd: work, env, timeoutMs: 60_000 });
  const up = await readUp(
    work,
    a.then((run) => run.stderr),
  );
  assert.equal(up, 'up\n');
  const b = await runCli(args(scriptB), { cwd: work, env, timeoutMs: 60_000 });
  assert.equal(b.code, 0, b.stderr);
  const saidB = resultsOf(b.stdout);
  assert.match(saidB, /B-ENDED/);
  assert.match(saidB, /rmdir: failed to remove '.agentpipe'/, 'the points were there, and held');
  assert.doesNotMatch(saidB, /PLANTED/);
  // Non-blocking: with A's command gone (no reader) this fails at once instead of waiting.
  const go = await open(path.join(work, 'go'), constants.O_WRONLY | constants.O_NONBLOCK);
  await go.writeFile('go\n');
  await go.close();
  const ranA = await a;
  assert.equal(ranA.code, 0, ranA.stderr);
  const saidA = resultsOf(ranA.stdout);
  assert.match(saidA, /A-ENDED/);
  assert.doesNotMatch(saidA, /PLANTED/);
  assert.deepEqual(readdirSync(work).sort(), ['go', 'up'], "no point is left in the user's folder");
});

test('a session killed with SIGKILL while its command runs: the command dies with it, the next session reaps the points and its temp folder', async () => {
  const { root, work, tmp, env } = folder();
  // A's command outlives its session, if it can: after `go` it plants, and tells where it got to in a file.
  const scriptA = writeScript(
    root,
    bash(`echo up > up; read go < go; (${plant}) > a-after.txt 2>&1; echo A-ENDED >> a-after.txt`),
    'a.json',
  );
  const a = startCli(args(scriptA), { cwd: work, env });
  a.stdin?.end();
  const ended = new Promise<void>((resolve) => a.on('close', () => resolve()));
  assert.equal(
    await readUp(
      work,
      ended.then(() => 'exited'),
    ),
    'up\n',
  );
  assert.ok(readdirSync(work).includes('.agentpipe'), 'A has its points');
  const sandboxFolders = () => readdirSync(tmp).filter((name) => name.startsWith('agentpipe-sbx-'));
  const [left, ...more] = sandboxFolders();
  assert.match(
    left ?? '',
    new RegExp(`^agentpipe-sbx-[0-9a-f]{12}-\\d+-${a.pid}-\\d+-`),
    'A has its temp folder, named for it',
  );
  assert.deepEqual(more, []);
  a.kill('SIGKILL');
  await ended;
  const b = await runCli(args(writeScript(root, bash('ls -A; echo B-ENDED'), 'b.json')), {
    cwd: work,
    env,
    timeoutMs: 60_000,
  });
  assert.equal(b.code, 0, b.stderr);
  assert.match(resultsOf(b.stdout), /B-ENDED/);
  // A's command, if it still ran, is now let go; with no reader left this open fails at once (ENXIO).
  const opened = await open(path.join(work, 'go'), constants.O_WRONLY | constants.O_NONBLOCK).then(
    async (go) => {
      await go.writeFile('go\n');
      await go.close();
      return 'a reader was left';
    },
    (error: NodeJS.ErrnoException) => error.code,
  );
  assert.equal(opened, 'ENXIO', "A's command died with its session");
  assert.deepEqual(readdirSync(work).sort(), ['go', 'up'], "no point is left in the user's folder");
  assert.deepEqual(sandboxFolders(), [], "B removed its own temp folder and swept A's");
});
