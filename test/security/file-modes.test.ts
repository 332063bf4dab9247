/**
 * What agentpipe writes about a session is its owner's only (issue 27: transcripts and debug logs
 * were 0644): transcripts, their locks, debug logs and the code cache are created 0600 in folders
 * created 0700, whatever the umask (the runs here use umask 000), and an existing transcript, its
 * folder and a debug log are tightened when agentpipe opens them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_PATH } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

/** Runs the CLI under umask 000, so only the modes agentpipe asks for keep others out. */
function runOpen(args: string[], cwd: string, env: Record<string, string>): Promise<number | null> {
  const child = spawn('sh', ['-c', 'umask 000; exec "$@"', 'sh', process.execPath, CLI_PATH, ...args], {
    cwd,
    stdio: ['pipe', 'ignore', 'inherit'],
    env: { ...process.env, ANTHROPIC_API_KEY: '', ...env },
  });
  child.stdin.end();
  return new Promise((resolve) => child.on('close', resolve));
}

test('under umask 000: a new transcript, its folders, a debug log and the code cache are 0600 in 0700 folders', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'private' }]);
  const home = path.join(scratchDir('modes-'), 'home');
  const debug = path.join(dir, 'logs', 'deep', 'debug.log');
  const code = await runOpen(['-p', 'hi', '--model', 'scripted', '--script', script, '--debug-file', debug], dir, {
    AGENTPIPE_HOME: home,
  });
  assert.equal(code, 0);
  const projects = path.join(home, 'projects');
  const [folder] = readdirSync(projects);
  const [transcript] = readdirSync(path.join(projects, folder!));
  assert.match(transcript!, /\.jsonl$/);
  assert.deepEqual(
    [home, projects, path.join(projects, folder!), path.join(projects, folder!, transcript!)].map(mode),
    ['700', '700', '700', '600'],
  );
  assert.deepEqual([path.dirname(path.dirname(debug)), path.dirname(debug), debug].map(mode), ['700', '700', '600']);
  const cache = path.join(home, 'cache');
  assert.deepEqual([cache, ...readdirSync(cache).map((name) => path.join(cache, name))].map(mode), ['700', '600']);
});

test('an existing transcript and its folder made by an older version, and an existing debug log, are tightened', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'first' }, { text: 'again' }]);
  const home = scratchDir('modes-');
  const flags = ['--model', 'scripted', '--script', script];
  assert.equal(await runOpen(['-p', 'hi', ...flags], dir, { AGENTPIPE_HOME: home }), 0);
  const folder = path.join(home, 'projects', readdirSync(path.join(home, 'projects'))[0]!);
  const transcript = path.join(folder, readdirSync(folder)[0]!);
  chmodSync(folder, 0o755);
  chmodSync(transcript, 0o644);
  const debug = path.join(dir, 'debug.log');
  writeFileSync(debug, 'older lines\n', { mode: 0o644 });
  chmodSync(debug, 0o644);
  const id = path.basename(transcript, '.jsonl');
  assert.equal(
    await runOpen(['-p', 'more', ...flags, '--resume', id, '--debug-file', debug], dir, { AGENTPIPE_HOME: home }),
    0,
  );
  assert.deepEqual([folder, transcript, debug].map(mode), ['700', '600', '600']);
});

test('the lock of a live session is 0600', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'held' }]);
  const home = scratchDir('modes-');
  mkdirSync(path.join(home, 'projects'), { mode: 0o755 });
  chmodSync(path.join(home, 'projects'), 0o755);
  const driver = new StreamDriver(['--model', 'scripted', '--script', script], dir, { AGENTPIPE_HOME: home });
  await driver.prompt('hi');
  const folder = path.join(home, 'projects', readdirSync(path.join(home, 'projects'))[0]!);
  const lock = readdirSync(folder).find((name) => name.endsWith('.lock'))!;
  assert.equal(mode(path.join(folder, lock)), '600');
  assert.equal(mode(folder), '700');
  assert.equal(await driver.end(), 0);
});
