/**
 * bin/agentpipe.js's V8 code cache of the CLI's entry: written once by a run that did real work,
 * used by the next runs (never rewritten while V8 accepts it, even after a run that changed a V8
 * flag), replaced when corrupt, private to the user, and never written by --version, --help,
 * server commands or with AGENTPIPE_CODE_CACHE=0. Whatever the cache, the output is the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const dir = tempDir();
const script = writeScript(dir, [{ text: 'Cached or not, the same answer.' }]);

/** One scripted run with its own agentpipe home; asserts its answer. */
async function run(home: string, args = ['-p', 'hi', ...scriptedStreamArgs(script)], env: NodeJS.ProcessEnv = {}) {
  const result = await runCli(args, { cwd: dir, env: { AGENTPIPE_HOME: home, ...env } });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  return result;
}

function cacheFiles(home: string): string[] {
  const cache = path.join(home, 'cache');
  return existsSync(cache) ? readdirSync(cache).map((name) => path.join(cache, name)) : [];
}

test('a run writes the cache once, private to the user; the next runs use it without rewriting it', async () => {
  const home = scratchDir('code-cache-');
  const first = await run(home);
  assert.equal(parseLines(first.stdout).at(-1)!.result, 'Cached or not, the same answer.');
  const [file, ...more] = cacheFiles(home);
  assert.ok(file, 'a cache file was written');
  assert.deepEqual(more, []);
  assert.match(path.basename(file), /^entry-(\d+-){5}v\d+\.\d+\.\d+-\w+\.v8$/);
  assert.ok(statSync(file).size > 50_000, 'it holds the compiled entry');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
  const written = statSync(file, { bigint: true });
  for (let i = 0; i < 2; i++) {
    const again = await run(home);
    assert.equal(parseLines(again.stdout).at(-1)!.result, 'Cached or not, the same answer.');
  }
  const after = statSync(file, { bigint: true });
  assert.equal(after.ino, written.ino, 'accepted by V8, so not written again');
  assert.equal(after.mtimeNs, written.mtimeNs);
});

test('a run long enough to change a V8 flag saves the cache first: the next run accepts it', async () => {
  const home = scratchDir('code-cache-');
  // ~150 ms of deltas: the CLI sets the young-generation flag 50 ms in.
  const slow = writeScript(dir, [{ text: 'slowly', chunk_size: 1, delay_ms: 25 }], 'slow.json');
  await run(home, ['-p', 'hi', ...scriptedStreamArgs(slow)]);
  const [file] = cacheFiles(home);
  assert.ok(file);
  const written = statSync(file, { bigint: true });
  await run(home);
  assert.equal(statSync(file, { bigint: true }).ino, written.ino, 'accepted, not rewritten');
});

test('a corrupt cache is rejected and replaced; the run is unharmed', async () => {
  const home = scratchDir('code-cache-');
  await run(home);
  const [file] = cacheFiles(home);
  writeFileSync(file!, Buffer.alloc(4096, 0x5a));
  const result = await run(home);
  assert.equal(parseLines(result.stdout).at(-1)!.result, 'Cached or not, the same answer.');
  assert.ok(statSync(file!).size > 50_000, 'written again from this run');
});

test('--version, --help, a server command and AGENTPIPE_CODE_CACHE=0 write no cache', async () => {
  const home = scratchDir('code-cache-');
  await run(home, ['--version']);
  await run(home, ['--help']);
  await run(home, ['sessions', '--json']);
  const off = await run(home, ['-p', 'hi', ...scriptedStreamArgs(script)], { AGENTPIPE_CODE_CACHE: '0' });
  assert.equal(parseLines(off.stdout).at(-1)!.result, 'Cached or not, the same answer.');
  assert.deepEqual(cacheFiles(home), []);
});

test('a cache folder others may write gets no cache (a planted cache would be code)', async () => {
  const home = scratchDir('code-cache-');
  await run(home);
  const [file] = cacheFiles(home);
  rmSync(file!);
  chmodSync(path.dirname(file!), 0o777);
  const result = await run(home);
  assert.equal(parseLines(result.stdout).at(-1)!.result, 'Cached or not, the same answer.');
  assert.deepEqual(cacheFiles(home), []);
  // A private folder again: written.
  chmodSync(path.dirname(file!), 0o700);
  await run(home);
  assert.equal(cacheFiles(home).length, 1);
});
