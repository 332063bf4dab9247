#!/usr/bin/env node
// The agentpipe CLI: the bundle in dist/bin/ (built by `npm ci` or `npm run build`). CommonJS
// (bin/package.json), like the bundle: no ES module loader to start, ~2 ms of every run.
'use strict';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`agentpipe: error: Node.js 22.18 or newer is needed (this is ${process.version}). Inside the project, \`npx agentpipe\` uses the pinned Node.\n`);
  process.exit(1);
}

// A signal while the CLI loads is kept for it (src/cli/early-signals.ts): without a listener, Node
// would end the process before the run could give its prompt a result.
{
  const signals = [];
  const listener = (signal) => signals.push(signal);
  const stops = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of stops) process.on(signal, listener);
  globalThis[Symbol.for('agentpipe.earlySignals')] = { signals, listener };
  // The test hook of early-signals.ts, at the launcher's own stage.
  const [signal, stage] = (process.env.AGENTPIPE_TEST_SIGNAL ?? '').split('@');
  if (stage === 'launcher' && stops.includes(signal)) process.kill(process.pid, signal);
}

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
const vm = process.getBuiltinModule('node:vm');
const Module = process.getBuiltinModule('node:module');
const { createRequire, enableCompileCache } = Module;

// The chunks loaded later (a subcommand, a provider) use Node's compile cache.
enableCompileCache?.();

const entry = path.join(__dirname, '../dist/bin/entry.cjs');

/**
 * The entry chunk (everything every run loads) with a V8 code cache written after a run, not
 * before it as Node's compile cache is: V8 compiles a function when it is first called, and
 * Node's cache, made when the file is compiled, holds only what V8 compiled up front. This one
 * also holds every function the run called, so a later run skips compiling them (~7 ms of a
 * ~45 ms one-turn run). AGENTPIPE_CODE_CACHE=0 turns it off.
 *
 * A code cache is code, so:
 * - It lives in agentpipe's home (`~/.agentpipe/cache/`, or `$AGENTPIPE_HOME/cache/`), in a folder
 *   the user owns and no one else may write, and the file is checked on the descriptor it is read
 *   from (owned by the user, writable by no one else, not a link), so a swap between a check and
 *   the read changes nothing. A home anyone may write (no sticky bit) gets no cache at all.
 * - Its name is the build (size, inode, device, and mtime and ctime to the nanosecond: no tool sets
 *   a ctime back) and the Node version: another build never meets it. V8 checks the source's
 *   length, its own version and its flags too, and a rejected cache is written again.
 * - V8 does not checksum a cache in release builds: a damaged one can crash it. A run marks the
 *   cache it uses until it exits; a mark left by a process that is gone drops the cache, so a
 *   damaged one costs one crash, not every run after it (a run killed with -9 costs one rewrite).
 *
 * Written once, by a run that did real work (not `--version`, `--help` or a server command, whose
 * functions are not the ones a run needs), at exit or before the CLI changes a V8 flag (a cache
 * made under other flags is rejected): the CLI calls `Symbol.for('agentpipe.saveCodeCache')`.
 */
function loadEntry() {
  let stat;
  let file;
  try {
    // The real path: the other chunks require it so, and one module must not load twice.
    file = fs.realpathSync(entry);
    stat = fs.statSync(file, { bigint: true });
  } catch {
    process.stderr.write(`agentpipe: error: ${entry} is missing: run \`npm run build\` (or \`npm ci\`) in ${path.dirname(__dirname)}\n`);
    process.exit(1);
  }
  if (process.env.AGENTPIPE_CODE_CACHE === '0') {
    require(file); // with Node's compile cache only
    return;
  }
  const home = process.env.AGENTPIPE_HOME
    ? path.resolve(process.env.AGENTPIPE_HOME)
    : path.join(process.getBuiltinModule('node:os').homedir(), '.agentpipe');
  const build = [stat.size, stat.ino, stat.dev, stat.mtimeNs, stat.ctimeNs].join('-');
  const cache = path.join(home, 'cache', `entry-${build}-${process.version}-${process.arch}.v8`);
  const cachedData = readCache(home, cache);
  const inUse = `${cache}.in-use-${process.pid}`;
  if (cachedData) markInUse(inUse);
  const source = fs.readFileSync(file, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  if (cachedData && script.cachedDataRejected) unmark(inUse);
  if ((!cachedData || script.cachedDataRejected) && worthCaching(process.argv.slice(2))) {
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      saveCache(home, cache, script.createCachedData());
    };
    globalThis[Symbol.for('agentpipe.saveCodeCache')] = save;
    process.once('exit', save);
  }
  // A module in require's cache, as require() would have made it: the other chunks require the
  // entry for the code they share, and must get this instance, not a second one.
  const module = new Module(file);
  module.filename = file;
  const requireFromEntry = createRequire(file);
  requireFromEntry.cache[file] = module;
  script.runInThisContext()(module.exports, requireFromEntry, module, file, path.dirname(file));
  module.loaded = true;
}

/** A run whose compiled functions are the ones later runs need: not a version, help or server command. */
function worthCaching(args) {
  const first = args.find((arg) => !arg.startsWith('-'));
  if (['serve', 'worker', 'view', 'attach', 'sessions', 'acp', 'help'].includes(first)) return false;
  return !args.some((arg) => ['-v', '--version', '-h', '--help'].includes(arg));
}

/** The user's own, and no one else may write it. */
function ownedPrivately(stat) {
  return (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
}

/** A home anyone may write (without the sticky bit) holds no code cache. */
function homeIsShared(home) {
  const mode = fs.statSync(home).mode;
  return (mode & 0o002) !== 0 && (mode & 0o1000) === 0;
}

/** The cache, read from the descriptor its checks were made on; undefined when there is none to trust. */
function readCache(home, cache) {
  let fd;
  try {
    if (homeIsShared(home) || !ownedPrivately(fs.statSync(path.dirname(cache)))) return undefined;
    if (lastUseDied(cache)) {
      fs.rmSync(cache, { force: true });
      return undefined;
    }
    fd = fs.openSync(cache, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    return ownedPrivately(fs.fstatSync(fd)) ? fs.readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** True when a run that used `cache` is gone without unmarking it (a crash, a kill -9); its marks are removed. */
function lastUseDied(cache) {
  const dir = path.dirname(cache);
  const prefix = `${path.basename(cache)}.in-use-`;
  let died = false;
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) continue;
    fs.rmSync(path.join(dir, name), { force: true });
    died = true;
  }
  return died;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function markInUse(mark) {
  try {
    fs.writeFileSync(mark, '', { mode: 0o600 });
    process.once('exit', () => unmark(mark));
  } catch {
    // Unmarked (a full disk may have left the file empty): a crash would then not drop the cache,
    // which is all a mark is for.
    unmark(mark);
  }
}

function unmark(mark) {
  fs.rmSync(mark, { force: true });
}

/** Writes the cache atomically into a folder only the user can write; a failure only costs the speed-up. */
function saveCache(home, cache, data) {
  const temporary = `${cache}.${process.pid}.tmp`;
  try {
    const dir = path.dirname(cache);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (homeIsShared(home) || !ownedPrivately(fs.statSync(dir))) return;
    // Caches of other builds or Node versions: the three newest stay (two installs may share a home).
    const others = fs
      .readdirSync(dir)
      .filter((name) => name.startsWith('entry-') && name.endsWith('.v8') && path.join(dir, name) !== cache)
      .map((name) => ({ name, time: fs.statSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => b.time - a.time);
    for (const { name } of others.slice(3)) fs.rmSync(path.join(dir, name), { force: true });
    fs.writeFileSync(temporary, data, { mode: 0o600 });
    fs.renameSync(temporary, cache);
  } catch {
    // Read-only home, full disk, a folder in the way: the next run compiles as without a cache.
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // Nothing was written.
    }
  }
}

loadEntry();
