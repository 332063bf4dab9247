#!/usr/bin/env node
// The agentpipe CLI: the bundle in dist/bin/ (built by `npm ci` or `npm run build`). CommonJS
// (bin/package.json), like the bundle: no ES module loader to start, ~2 ms of every run.
'use strict';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`agentpipe: error: Node.js 22.18 or newer is needed (this is ${process.version}). Inside the project, \`npx agentpipe\` uses the pinned Node.\n`);
  process.exit(1);
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
 * ~45 ms one-turn run). The cache lives in agentpipe's home (`~/.agentpipe/cache/`, or
 * `$AGENTPIPE_HOME/cache/`), private to the user, named after the entry's size, time and inode
 * and the Node version, so a rebuild or another Node never meets a stale one; V8 checks it too
 * and rejects a mismatch, and then it is written again. AGENTPIPE_CODE_CACHE=0 turns it off.
 *
 * Written once, by a run that did real work (not `--version`, `--help` or a server command, whose
 * functions are not the ones a run needs), at exit or before the CLI changes a V8 flag (a cache
 * made under other flags is rejected): the CLI calls `Symbol.for('agentpipe.saveCodeCache')`.
 */
function loadEntry() {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    process.stderr.write(`agentpipe: error: ${entry} is missing: run \`npm run build\` (or \`npm ci\`) in ${path.dirname(__dirname)}\n`);
    process.exit(1);
  }
  if (process.env.AGENTPIPE_CODE_CACHE === '0') {
    require(entry); // with Node's compile cache only
    return;
  }
  const home = process.env.AGENTPIPE_HOME
    ? path.resolve(process.env.AGENTPIPE_HOME)
    : path.join(process.getBuiltinModule('node:os').homedir(), '.agentpipe');
  const key = `${stat.size}-${Math.round(stat.mtimeMs)}-${stat.ino}-${process.version}-${process.arch}`;
  const file = path.join(home, 'cache', `entry-${key}.v8`);
  let cachedData;
  try {
    if (ownedPrivately(path.dirname(file)) && ownedPrivately(file)) cachedData = fs.readFileSync(file);
  } catch {
    cachedData = undefined;
  }
  const source = fs.readFileSync(entry, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: entry,
    cachedData,
  });
  if ((!cachedData || script.cachedDataRejected) && worthCaching(process.argv.slice(2))) {
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      saveCache(file, script.createCachedData());
    };
    globalThis[Symbol.for('agentpipe.saveCodeCache')] = save;
    process.once('exit', save);
  }
  // A module in require's cache, as require() would have made it: the other chunks require the
  // entry for the code they share, and must get this instance, not a second one.
  const module = new Module(entry);
  module.filename = entry;
  const requireFromEntry = createRequire(entry);
  requireFromEntry.cache[entry] = module;
  script.runInThisContext()(module.exports, requireFromEntry, module, entry, path.dirname(entry));
  module.loaded = true;
}

/** A run whose compiled functions are the ones later runs need: not a version, help or server command. */
function worthCaching(args) {
  const first = args.find((arg) => !arg.startsWith('-'));
  if (['serve', 'worker', 'view', 'attach', 'sessions', 'acp', 'help'].includes(first)) return false;
  return !args.some((arg) => ['-v', '--version', '-h', '--help'].includes(arg));
}

/**
 * True when `target` (followed if a link) belongs to this user and no one else may write it. A code
 * cache is code: one planted by someone else must never run, so the cache's folder and file must
 * be the user's own.
 */
function ownedPrivately(target) {
  const stat = fs.statSync(target);
  return (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
}

/** Writes the cache atomically into a folder only the user can write; a failure only costs the speed-up. */
function saveCache(file, data) {
  try {
    const dir = path.dirname(file);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownedPrivately(dir)) return;
    // Caches of other builds or Node versions: the three newest stay (two installs may share a home).
    const others = fs
      .readdirSync(dir)
      .filter((name) => name.startsWith('entry-') && path.join(dir, name) !== file)
      .map((name) => ({ name, time: fs.statSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => b.time - a.time);
    for (const { name } of others.slice(3)) fs.rmSync(path.join(dir, name), { force: true });
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, data, { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch {
    // Read-only home, full disk: the next run compiles as it would without a cache.
  }
}

loadEntry();
