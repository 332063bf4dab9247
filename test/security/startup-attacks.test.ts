/**
 * An attacker's (and a demanding user's) pass over three start-up mechanisms of the built CLI
 * (issue 13): bin/agentpipe.js's V8 code cache of the entry (a cache is code: a planted, stale or
 * damaged one must never run), the entry put into require's cache (one instance whatever loads
 * it), and stdout written straight onto fd 1 (pipeline/fd-writer.ts) with exit flushing only the
 * stdio streams the run made. Every row runs the real CLI. Six rows first showed real bugs, fixed
 * since: a hostile home swapping the cache folder between check and read, a stale cache of the same
 * name, a damaged cache crashing every run, a linked dist/bin loading the entry twice, a failed
 * stdout exiting 0, a temporary file left behind; the others are ideas that held.
 *
 * Scratch copies of the package (bin/ and dist/bin/, node_modules linked) stand in for "another
 * build" or "another layout": the real dist/ is never modified.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { CLI_PATH, ROOT, parseLines, runCli, scriptedStreamArgs, type RunResult } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const ANSWER = 'An answer, whatever the cache.';
const dir = tempDir();
const script = writeScript(dir, [{ text: ANSWER }]);
const RUN = ['-p', 'hi', ...scriptedStreamArgs(script), '--no-session-persistence'];
const isRoot = process.getuid?.() === 0;
const notRoot = isRoot ? false : 'needs root (files owned by another user)';
/** A user id that is not ours, for files "someone else" owns. */
const OTHER_UID = 65534;

/** Runs `cli` (default: the real one) with its own agentpipe home. */
async function run(
  home: string,
  args: string[] = RUN,
  options: { cli?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<RunResult> {
  const env = { AGENTPIPE_HOME: home, ...options.env };
  if (!options.cli) return runCli(args, { cwd: options.cwd ?? dir, env });
  const child = spawn(process.execPath, [options.cli, ...args], {
    cwd: options.cwd ?? dir,
    env: { ...process.env, ANTHROPIC_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ stdout, stderr, code, signal })));
}

/** A clean scripted run: exit 0, nothing on stderr, the answer; returns the init message. */
function assertAnswered(result: RunResult): Record<string, any> {
  assert.equal(result.signal, null, `killed by ${result.signal}: ${result.stderr.slice(0, 300)}`);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  const lines = parseLines(result.stdout);
  assert.equal(lines.at(-1)!.result, ANSWER);
  assert.equal(lines[0]!.subtype, 'init');
  return lines[0]!;
}

function cacheFiles(home: string): string[] {
  const cache = path.join(home, 'cache');
  return existsSync(cache) ? readdirSync(cache).map((name) => path.join(cache, name)) : [];
}

/** The cache file name bin/agentpipe.js uses for `entry` (size, inode, device, mtime, ctime; this Node). */
function cacheName(entry: string): string {
  const stat = statSync(realpathSync(entry), { bigint: true });
  const build = [stat.size, stat.ino, stat.dev, stat.mtimeNs, stat.ctimeNs].join('-');
  return `entry-${build}-${process.version}-${process.arch}.v8`;
}

/**
 * A scratch copy of the package: bin/, dist/bin/ (or build/bin/ behind a dist/bin link), node_modules
 * linked. Returns the paths of its CLI and its entry.
 */
function packageCopy(options: { linkedDist?: boolean } = {}): { cli: string; entry: string } {
  const root = scratchDir('startup-pkg-');
  cpSync(path.join(ROOT, 'bin'), path.join(root, 'bin'), { recursive: true });
  const bundle = path.join(root, options.linkedDist ? 'build/bin' : 'dist/bin');
  cpSync(path.join(ROOT, 'dist/bin'), bundle, { recursive: true });
  if (options.linkedDist) {
    mkdirSync(path.join(root, 'dist'));
    symlinkSync('../build/bin', path.join(root, 'dist/bin'));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  return { cli: path.join(root, 'bin/agentpipe.js'), entry: path.join(root, 'dist/bin/entry.cjs') };
}

/**
 * `source` with the Claude Code version it announces (the init message's claude_code_version)
 * changed, at the same length: V8 checks a code cache against the source's length only.
 */
function doctor(source: string): { source: string; version: string } {
  const match = /COMPAT_CLAUDE_CODE_VERSION = "([^"]+)"/.exec(source);
  assert.ok(match, 'the entry announces a Claude Code version');
  const version = match[1]!.replace(/\d/g, (d) => (d === '9' ? '8' : '9'));
  const doctored = source.replace(match[0], `COMPAT_CLAUDE_CODE_VERSION = "${version}"`);
  assert.equal(doctored.length, source.length);
  return { source: doctored, version };
}

/**
 * A valid code cache of a doctored entry of the real entry's length: code that, if V8 took it for
 * the real entry, would announce `version`. Made once, by a run of a doctored scratch copy.
 */
let plantable: Promise<{ file: string; version: string }> | undefined;
function doctoredCache(): Promise<{ file: string; version: string }> {
  plantable ??= (async () => {
    const copy = packageCopy();
    const { source, version } = doctor(readFileSync(copy.entry, 'utf8'));
    writeFileSync(copy.entry, source);
    const home = scratchDir('startup-home-');
    const init = assertAnswered(await run(home, RUN, { cli: copy.cli }));
    assert.equal(init.claude_code_version, version);
    const [file] = cacheFiles(home);
    assert.ok(file, 'the doctored copy wrote its cache');
    return { file, version };
  })();
  return plantable;
}

/** A fresh home whose cache folder (private) holds the doctored cache under the real entry's name. */
async function plant(): Promise<{ home: string; file: string; version: string }> {
  const { file: source, version } = await doctoredCache();
  const home = scratchDir('startup-home-');
  mkdirSync(path.join(home, 'cache'), { mode: 0o700 });
  const file = path.join(home, 'cache', cacheName(path.join(ROOT, 'dist/bin/entry.cjs')));
  copyFileSync(source, file);
  chmodSync(file, 0o600);
  return { home, file, version };
}

// ---------------------------------------------------------------------------------------------
// The code cache: planted caches

test('control: a cache of other source of the same length, planted privately, is taken by V8 as is', async (t) => {
  // What makes a planted or stale cache code: V8 compares the source's length, not its text. If
  // this no longer holds, the planted rows below prove less (they would pass anyway).
  const { home, version } = await plant();
  const init = assertAnswered(await run(home));
  if (init.claude_code_version !== version) t.diagnostic('V8 now rejects a cache made from other source');
  assert.equal(init.claude_code_version, version);
});

for (const mode of [0o660, 0o620, 0o606, 0o602]) {
  test(`a planted cache others may write (${mode.toString(8)}) never runs; a private one replaces it`, async () => {
    const { home, file, version } = await plant();
    chmodSync(file, mode);
    const init = assertAnswered(await run(home));
    assert.notEqual(init.claude_code_version, version);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'replaced by this run');
  });
}

test('a planted cache in a cache folder others may write (0770, 0777) never runs', async () => {
  for (const mode of [0o770, 0o777, 0o730]) {
    const { home, file, version } = await plant();
    chmodSync(path.dirname(file), mode);
    const init = assertAnswered(await run(home));
    assert.notEqual(init.claude_code_version, version, `folder mode ${mode.toString(8)}`);
  }
});

test('a cache folder linked to a world-writable sticky folder (/tmp-like): the cache there never runs', async () => {
  const { home, file, version } = await plant();
  const shared = scratchDir('startup-shared-');
  chmodSync(shared, 0o1777);
  const moved = path.join(shared, path.basename(file));
  copyFileSync(file, moved);
  chmodSync(moved, 0o600);
  const cache = path.dirname(file);
  rmSync(cache, { recursive: true });
  symlinkSync(shared, cache);
  const init = assertAnswered(await run(home));
  assert.notEqual(init.claude_code_version, version);
  assert.equal(readFileSync(moved).equals(readFileSync((await doctoredCache()).file)), true, 'nothing written there');
});

test(
  'a cache folder another user owns (even 0700): its cache never runs, none is written',
  { skip: notRoot },
  async () => {
    const { home, file, version } = await plant();
    chownSync(file, OTHER_UID, OTHER_UID);
    chownSync(path.dirname(file), OTHER_UID, OTHER_UID);
    const init = assertAnswered(await run(home));
    assert.notEqual(init.claude_code_version, version);
    assert.equal(statSync(file).uid, OTHER_UID, 'not written into');
  },
);

test(
  'a cache file another user owns (0600) in our folder never runs; ours replaces it',
  { skip: notRoot },
  async () => {
    const { home, file, version } = await plant();
    chownSync(file, OTHER_UID, OTHER_UID);
    const init = assertAnswered(await run(home));
    assert.notEqual(init.claude_code_version, version);
    assert.equal(statSync(file).uid, process.getuid!());
  },
);

test(
  'a cache folder that links to another user`s folder, or a cache file that links to their file',
  { skip: notRoot },
  async () => {
    // The folder.
    {
      const { home, file, version } = await plant();
      const theirs = scratchDir('startup-theirs-');
      const planted = path.join(theirs, path.basename(file));
      copyFileSync(file, planted);
      chmodSync(planted, 0o644);
      chownSync(planted, OTHER_UID, OTHER_UID);
      chmodSync(theirs, 0o755);
      chownSync(theirs, OTHER_UID, OTHER_UID);
      rmSync(path.dirname(file), { recursive: true });
      symlinkSync(theirs, path.dirname(file));
      const init = assertAnswered(await run(home));
      assert.notEqual(init.claude_code_version, version);
      assert.deepEqual(readdirSync(theirs), [path.basename(file)], 'nothing written there');
    }
    // The file.
    {
      const { home, file, version } = await plant();
      const theirs = scratchDir('startup-theirs-');
      const planted = path.join(theirs, 'code.v8');
      copyFileSync(file, planted);
      chownSync(planted, OTHER_UID, OTHER_UID);
      rmSync(file);
      symlinkSync(planted, file);
      const init = assertAnswered(await run(home));
      assert.notEqual(init.claude_code_version, version);
    }
  },
);

test('a home others may write (0777, not sticky): its cache is never read, since they can swap the cache folder', async () => {
  const { home, version } = await plant();
  chmodSync(home, 0o777);
  const init = assertAnswered(await run(home));
  assert.notEqual(init.claude_code_version, version, 'a cache in a home others may write was read');
});

// ---------------------------------------------------------------------------------------------
// The code cache: stale and damaged caches

test('a stale cache of the same name never runs: the entry rewritten in place, same size, its time kept', async () => {
  const copy = packageCopy();
  const home = scratchDir('startup-home-');
  const before = assertAnswered(await run(home, RUN, { cli: copy.cli }));
  const [file] = cacheFiles(home);
  assert.ok(file);
  const stat = statSync(copy.entry);
  const { source, version } = doctor(readFileSync(copy.entry, 'utf8'));
  assert.notEqual(before.claude_code_version, version);
  // A new build written over the old file (same inode), its time set back (as `touch -r` would).
  writeFileSync(copy.entry, source);
  utimesSync(copy.entry, stat.atimeMs / 1000, stat.mtimeMs / 1000);
  assert.notEqual(cacheName(copy.entry), path.basename(file), 'the rewrite changed the ctime, so the name');
  const after = assertAnswered(await run(home, RUN, { cli: copy.cli }));
  assert.equal(after.claude_code_version, version, 'the new build runs, not the cached old one');
});

test('a cache with a few damaged bytes costs at most one crash: the next runs drop it, write it again, and work', async () => {
  // V8 checks no checksum in release builds: damaged bytes may crash the run that loads them. That
  // run leaves its in-use mark, and the next run drops the cache.
  const home = scratchDir('startup-home-');
  assertAnswered(await run(home));
  const [file] = cacheFiles(home);
  assert.ok(file);
  const data = readFileSync(file);
  data.fill(0xff, 100, 108);
  writeFileSync(file, data);
  const first = await run(home, ['--version']);
  assert.ok(first.code === 0 || first.code === 133 || first.signal !== null, `${first.code} ${first.signal}`);
  const version = await run(home, ['--version']);
  assert.equal(version.signal, null, version.stderr.slice(0, 200));
  assert.equal(version.code, 0);
  assertAnswered(await run(home));
  assertAnswered(await run(home));
  const [again] = cacheFiles(home).filter((name) => name.endsWith('.v8'));
  assert.ok(again && !readFileSync(again).equals(data), 'the damaged cache is gone');
});

test('a truncated or empty cache is rejected and replaced; the run is unharmed', async () => {
  for (const size of [0, 8, 64, 100_000]) {
    const home = scratchDir('startup-home-');
    assertAnswered(await run(home));
    const [file] = cacheFiles(home);
    const full = statSync(file!).size;
    truncateSync(file!, size);
    assertAnswered(await run(home));
    assert.ok(statSync(file!).size > full / 2, `truncated to ${size}: written again`);
    const written = statSync(file!, { bigint: true });
    assertAnswered(await run(home));
    assert.equal(statSync(file!, { bigint: true }).ino, written.ino, 'and then taken, not rewritten');
  }
});

test('six runs writing the cache at once: all answer, one whole cache, no temporary file, taken next', async () => {
  const home = scratchDir('startup-home-');
  const results = await Promise.all(Array.from({ length: 6 }, () => run(home)));
  for (const result of results) assertAnswered(result);
  const files = cacheFiles(home);
  assert.equal(files.length, 1, files.join(', '));
  assert.match(path.basename(files[0]!), /\.v8$/);
  const written = statSync(files[0]!, { bigint: true });
  assertAnswered(await run(home));
  assert.equal(statSync(files[0]!, { bigint: true }).ino, written.ino, 'V8 took it: not rewritten');
});

test('a cache that cannot be written (the cache folder is a file, home not writable) costs nothing', async () => {
  const blocked = scratchDir('startup-home-');
  writeFileSync(path.join(blocked, 'cache'), 'not a folder');
  assertAnswered(await run(blocked));
  assertAnswered(await run(blocked));
  assert.equal(readFileSync(path.join(blocked, 'cache'), 'utf8'), 'not a folder');
  if (!isRoot) {
    const readOnly = scratchDir('startup-home-');
    chmodSync(readOnly, 0o500);
    assertAnswered(await run(readOnly));
    chmodSync(readOnly, 0o700);
    assert.deepEqual(readdirSync(readOnly), []);
  }
});

test('a cache name taken by a folder: the run answers and leaves no temporary file behind', async () => {
  const home = scratchDir('startup-home-');
  assertAnswered(await run(home));
  const [file] = cacheFiles(home);
  rmSync(file!);
  mkdirSync(file!);
  assertAnswered(await run(home));
  assert.deepEqual(cacheFiles(home), [file]);
});

test('HOME unset and a relative AGENTPIPE_HOME: runs answer; the cache goes where the transcripts go', async () => {
  const home = scratchDir('startup-home-');
  const noHome = await runCli(RUN, { cwd: dir, env: { AGENTPIPE_HOME: home, HOME: undefined } });
  assertAnswered(noHome);
  assert.equal(cacheFiles(home).length, 1);
  const cwd = scratchDir('startup-cwd-');
  const relative = await runCli(['-p', 'hi', ...scriptedStreamArgs(script)], {
    cwd,
    env: { AGENTPIPE_HOME: 'relative-home' },
  });
  assertAnswered(relative);
  assert.deepEqual(readdirSync(path.join(cwd, 'relative-home')).sort(), ['cache', 'projects']);
});

// ---------------------------------------------------------------------------------------------
// One instance of the entry

/** A preload that reports on stderr when require() compiles an entry.cjs (a second instance). */
function secondInstanceProbe(): string {
  const file = path.join(scratchDir('startup-probe-'), 'probe.cjs');
  writeFileSync(
    file,
    [
      "const Module = require('node:module');",
      'const compile = Module.prototype._compile;',
      'Module.prototype._compile = function (content, filename) {',
      "  if (require('node:path').basename(filename) === 'entry.cjs')",
      "    require('node:fs').writeSync(2, `second instance of the entry: ${filename}\\n`);",
      '  return compile.apply(this, arguments);',
      '};',
    ].join('\n'),
  );
  return file;
}

/** A model endpoint that refuses every request at once (401): counts them. */
async function refusingEndpoint(): Promise<{ url: string; requests: () => number; close: () => void }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'no', type: 'invalid_request_error', code: 'invalid_api_key' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { url: `http://127.0.0.1:${address.port}/v1`, requests: () => requests, close: () => server.close() };
}

/** `sessions --json` and a provider run (both load chunks that require the entry): one instance, one run. */
async function assertOneInstance(cli: string | undefined): Promise<void> {
  const probe = secondInstanceProbe();
  const env = { NODE_OPTIONS: `--require=${probe}` };
  const home = scratchDir('startup-home-');
  const sessions = await run(home, ['sessions', '--json'], { cli, env });
  assert.equal(sessions.stderr, '');
  assert.equal(sessions.code, 0);
  assert.deepEqual(JSON.parse(sessions.stdout), []);
  const endpoint = await refusingEndpoint();
  try {
    const provider = await run(
      home,
      ['-p', 'hi', '--model', 'gpt-4o-mini', '--output-format', 'stream-json', '--verbose'],
      { cli, env: { ...env, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: endpoint.url } },
    );
    assert.doesNotMatch(provider.stderr, /second instance/);
    const lines = parseLines(provider.stdout);
    assert.equal(lines.filter((line) => line.subtype === 'init').length, 1, 'one session');
    assert.equal(lines.filter((line) => line.type === 'result').length, 1, 'one result');
    assert.equal(endpoint.requests(), 1, 'one model request');
  } finally {
    endpoint.close();
  }
}

test('chunks loaded later (sessions, a provider) share the entry: one instance, one run', async () => {
  await assertOneInstance(undefined);
});

test('the package reached through a linked dist/bin: still one instance, one run', async () => {
  await assertOneInstance(packageCopy({ linkedDist: true }).cli);
});

// ---------------------------------------------------------------------------------------------
// stdout

/** A FIFO whose reader already left: every write to it fails with EPIPE. Returns the writing descriptor. */
function readerlessPipe(): number {
  const fifo = path.join(scratchDir('startup-fifo-'), 'out');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  closeSync(reader);
  return writer;
}

/** Runs the real CLI with `stdout` as its fd 1 (a descriptor, 'ignore'), optionally under `sh -c <prefix>`. */
function runWithStdout(
  args: string[],
  stdout: number | 'ignore',
  options: { shell?: string } = {},
): Promise<RunResult> {
  const home = scratchDir('startup-home-');
  const [command, argv] = options.shell
    ? ['sh', ['-c', `${options.shell} && exec "$@"`, 'sh', process.execPath, CLI_PATH, ...args]]
    : [process.execPath, [CLI_PATH, ...args]];
  const child = spawn(command, argv, {
    cwd: dir,
    env: { ...process.env, ANTHROPIC_API_KEY: '', AGENTPIPE_HOME: home },
    stdio: ['ignore', stdout, 'pipe'],
  });
  if (typeof stdout === 'number') closeSync(stdout);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ stdout: '', stderr, code, signal })));
}

test('a reader that left before anything was written (EPIPE): every command ends quietly, exit 0', async () => {
  const commands = [
    RUN,
    ['-p', 'hi', '--model', 'scripted', '--script', script, '--no-session-persistence'],
    ['--help'],
    ['--version'],
    ['sessions', '--json'],
  ];
  for (const args of commands) {
    const result = await runWithStdout(args, readerlessPipe());
    assert.deepEqual(
      { code: result.code, signal: result.signal, stderr: result.stderr },
      {
        code: 0,
        signal: null,
        stderr: '',
      },
      args.join(' '),
    );
  }
  // An error still says so, on stderr, with its exit code.
  const bad = await runWithStdout(['--no-such-flag'], readerlessPipe());
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^agentpipe: error: unknown option '--no-such-flag'/);
});

test('stdout /dev/null: exit 0, nothing on stderr', async () => {
  const result = await runWithStdout(RUN, 'ignore');
  assert.deepEqual([result.code, result.stderr], [0, '']);
});

test('stdout and stderr one open file (2>&1): the warning and every line whole, nothing overwritten', async () => {
  const file = path.join(scratchDir('startup-out-'), 'out.txt');
  const shared = openSync(file, 'w');
  const child = spawn(process.execPath, [CLI_PATH, ...RUN, '--plugin-dir', dir], {
    cwd: dir,
    env: { ...process.env, ANTHROPIC_API_KEY: '', AGENTPIPE_HOME: scratchDir('startup-home-') },
    stdio: ['ignore', shared, shared],
  });
  closeSync(shared);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  const [warning, ...json] = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  assert.match(warning!, /^agentpipe: warning: --plugin-dir is accepted but not supported yet/);
  const lines = parseLines(json.join('\n'));
  assert.equal(lines[0]!.subtype, 'init');
  assert.equal(lines.at(-1)!.result, ANSWER);
});

test('stdout a file that cannot grow (EFBIG, like a full disk): the failure is said and the exit code is not 0', async () => {
  const file = path.join(scratchDir('startup-out-'), 'out.txt');
  // ulimit -f 1: the file may not grow past one block (Node ignores SIGXFSZ: write() fails with EFBIG).
  const result = await runWithStdout(RUN, openSync(file, 'w'), { shell: 'ulimit -f 1' });
  const written = readFileSync(file, 'utf8');
  assert.ok(written.length > 0 && !written.includes('"type":"result"'), 'the output was cut');
  assert.match(result.stderr, /stdout failed: EFBIG/);
  assert.equal(result.signal, null);
  assert.equal(result.code, 1);
});
