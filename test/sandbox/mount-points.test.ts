/**
 * A protected folder missing from a writable folder gets a mount point for the run (bubblewrap
 * makes it) that is removed after the run. Runs at once in one folder (a cluster worker's sessions,
 * the process's shared temp folder, several agentpipe processes in one project) share it: it stays
 * until the last of them ends, and a run that starts while another's point is there mounts it as a
 * point, not as a folder of the user's. Before, the first run to end removed it while another's
 * bubblewrap was mounting it ("Can't get type of source .../.agentpipe", seen in CI with two test
 * files in the repository's folder at once), or while another process had it mounted, which
 * detaches that mount (Linux 3.18+) and lets that process's command create the folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mountArgs, releaseMountPoints } from '../../src/sandbox/mounts.ts';
import { pointPlan } from './fixtures/point-plan.ts';
import { tempDir } from '../helpers/workspace.ts';

test('a mount point shared by runs at once stays until the last of them ends', () => {
  const { plan, point, emptyDir } = pointPlan(tempDir());
  const bindsEmptyOn = (args: string[]): boolean =>
    args.some((arg, i) => arg === '--ro-bind' && args[i + 1] === emptyDir && args[i + 2] === point);

  const first = mountArgs(plan);
  assert.ok(bindsEmptyOn(first.args));
  assert.equal(first.claims.filter((claim) => claim.point === point).length, 1);
  mkdirSync(point); // what the first run's bubblewrap does

  const second = mountArgs(plan);
  assert.ok(bindsEmptyOn(second.args), 'the point is mounted as a point, not bound as a folder that stays');
  assert.equal(second.claims.filter((claim) => claim.point === point).length, 1);

  releaseMountPoints(first.claims);
  assert.ok(existsSync(point), 'kept while the second run may still mount it');
  releaseMountPoints(second.claims);
  assert.equal(existsSync(point), false, 'removed after the last run');

  // A folder of the user's (not a point of ours) is bound as it is and never removed.
  mkdirSync(point);
  const third = mountArgs(plan);
  assert.ok(!bindsEmptyOn(third.args));
  assert.equal(third.claims.filter((claim) => claim.point === point).length, 0);
  releaseMountPoints(third.claims);
  assert.ok(existsSync(point));
});

const RUNNER = fileURLToPath(new URL('./fixtures/point-runner.ts', import.meta.url));

test('runs in several processes at once in one folder: no run binds a point another removes, none loses its own', async () => {
  const root = tempDir();
  const { point } = pointPlan(root);
  const runs = 4;
  const results = await Promise.all(
    Array.from({ length: runs }, () => {
      const child = spawn(process.execPath, [RUNNER, root, '150'], { stdio: ['pipe', 'pipe', 'inherit'] });
      child.stdin.end();
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      return new Promise<string>((resolve) => child.on('close', () => resolve(out)));
    }),
  );
  for (const out of results) assert.deepEqual(JSON.parse(out), { runs: 150, failures: [] });
  assert.equal(existsSync(point), false, 'the last run removed the point');
  assert.deepEqual(readdirSync(path.join(root, 'work')), []);
});

test('a session holds its points from its first command to its end; its temp folder gets none', async () => {
  const { runSandboxed } = await import('../../src/sandbox/run.ts');
  const { closeSandbox } = await import('../../src/sandbox/config.ts');
  const work = path.join(tempDir(), 'work');
  mkdirSync(work);
  const config = { layers: [], cwd: work, directories: [], warn: () => {} };
  // Lists the temp folder's dot entries: none is a mount point of a protected folder.
  const run = () =>
    runSandboxed(config, {
      profile: 'workspace',
      command: 'ls -A "$TMPDIR"; ls -A',
      cwd: work,
      env: { PATH: process.env.PATH },
      stdin: '',
    });
  const first = await run();
  assert.equal(first.code, 0, first.stderr);
  assert.equal(
    first.stdout,
    '.agentpipe\n.claude\n.envrc\n.git\n.husky\n.idea\n.mcp.json\n.pre-commit-config.yaml\n.vscode\n',
    'the working folder has its points, the temp folder none',
  );
  assert.ok(existsSync(path.join(work, '.claude')), 'kept for the next command: no claim or removal per command');
  assert.equal((await run()).code, 0);
  closeSandbox(config);
  assert.equal(existsSync(path.join(work, '.claude')), false, 'removed when the session ends');
  assert.equal(existsSync(path.join(work, '.agentpipe')), false);
  assert.equal(existsSync(path.join(work, '.git')), false);
  assert.equal(existsSync(path.join(work, '.mcp.json')), false, 'a file point goes too');
  assert.deepEqual(readdirSync(work), []);
});

test('unix sockets: refused by the seccomp filter, allowed with network.allowAllUnixSockets (its filter made then)', async () => {
  const { runSandboxed } = await import('../../src/sandbox/run.ts');
  const { closeSandbox } = await import('../../src/sandbox/config.ts');
  const work = path.join(tempDir(), 'work');
  mkdirSync(work);
  // A listening unix socket in the session's temp folder: what the filter refuses (socket(AF_UNIX)).
  const script = "require('net').createServer().listen(process.env.TMPDIR + '/s', function () { this.close(); })";
  const listen = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`;
  const run = async (block: unknown) => {
    const config = {
      layers: block ? [{ source: 'flagSettings' as const, label: '--settings', block }] : [],
      cwd: work,
      directories: [],
      warn: () => {},
    };
    const result = await runSandboxed(config, {
      profile: 'workspace',
      command: listen,
      cwd: work,
      env: { PATH: process.env.PATH },
      stdin: '',
    });
    closeSandbox(config);
    return result;
  };
  const refused = await run(undefined);
  assert.notEqual(refused.code, 0, 'refused without the setting');
  assert.match(refused.stderr, /EPERM|EACCES|not permitted/i);
  const allowed = await run({ network: { allowAllUnixSockets: true } });
  assert.equal(allowed.code, 0, allowed.stderr);
});
