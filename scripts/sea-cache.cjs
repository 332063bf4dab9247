// Makes V8's code cache of each chunk of the single executable (scripts/sea.ts), run by the pinned Node whose binary
// the executable is, so that its V8 accepts the caches: `node sea-cache.cjs <dir> <chunk.cjs>...` writes
// <chunk.cjs>.cache beside each chunk. Each chunk is compiled as the executable's loader (scripts/sea-main.cjs)
// compiles it: wrapped as a CommonJS module, under the same file name. Then one offline run of the CLI (`-p hi` on
// the offline demo, in a scratch folder and home) loads the chunks a run uses through the same loader, and their
// caches are made again at its exit, holding the functions that run compiled too (as Node's own compile cache does).
'use strict';
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');
const { Module } = require('node:module');

const ROOT = '/$agentpipe/';
const [dir, ...names] = process.argv.slice(2);
const compile = (name) =>
  new vm.Script(Module.wrap(readFileSync(path.join(dir, name), 'utf8')), { filename: ROOT + name });
const save = (name, script) => writeFileSync(path.join(dir, `${name}.cache`), script.createCachedData());
for (const name of names) save(name, compile(name));

// The training run.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-sea-cache-'));
const loaded = new Map();
function load(name) {
  const done = loaded.get(name);
  if (done) return done.module.exports;
  const module = { exports: {}, id: name, loaded: false };
  const script = compile(name);
  loaded.set(name, { module, script });
  const chunkRequire = (id) => (id.startsWith('./') ? load(id.slice(2)) : require(id));
  script.runInThisContext().call(module.exports, module.exports, chunkRequire, module, ROOT + name, ROOT);
  module.loaded = true;
  return module.exports;
}
// Made before the run changes a V8 flag (it does so at ~50 ms, and before the grammar's WebAssembly compiles, as the
// launcher saves its own cache first): a cache made after a flag changed is rejected by a process that has not.
let saved = false;
const saveLoaded = () => {
  if (saved) return;
  saved = true;
  for (const [name, { script }] of loaded) save(name, script);
};
const v8 = require('node:v8');
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => (saveLoaded(), setFlags(flags));
process.on('exit', () => {
  saveLoaded();
  rmSync(scratch, { recursive: true, force: true });
});
process.env.AGENTPIPE_HOME = path.join(scratch, 'home');
process.chdir(scratch);
process.argv = [process.argv[0], 'agentpipe', '-p', 'hi', '--quiet'];
// The run's answer is of no use here.
process.stdout.write = () => true;
process.stderr.write = () => true;
load('entry.cjs');
