// The single executable's main script (scripts/sea.ts): loads the CLI's chunks from the executable's assets when they
// are first required, each compiled with the V8 code cache made for it at build time, and runs the entry chunk.
// Written as plain CommonJS: it is the one script Node runs by itself in the executable.
'use strict';
const sea = require('node:sea');
const vm = require('node:vm');
const { Module } = require('node:module');

const ROOT = '/$agentpipe/';
const loaded = new Map();

function load(name) {
  const done = loaded.get(name);
  if (done) return done.exports;
  const module = { exports: {}, id: name, loaded: false };
  loaded.set(name, module);
  const filename = ROOT + name;
  let cachedData;
  try {
    cachedData = new Uint8Array(sea.getAsset(`chunks/${name}.cache`));
  } catch {
    // no cache for this chunk: compiled from its source
  }
  const script = new vm.Script(Module.wrap(sea.getAsset(`chunks/${name}`, 'utf8')), { filename, cachedData });
  if (process.env.AGENTPIPE_SEA_DEBUG)
    process.stderr.write(`${name}: code cache ${cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'none'}\n`);
  const wrapper = script.runInThisContext();
  const chunkRequire = (id) => (id.startsWith('./') ? load(id.slice(2)) : require(id));
  // What a bundled package may read of its require (the executable's own: Node's builtins only).
  Object.assign(chunkRequire, { resolve: require.resolve, cache: require.cache, main: require.main });
  wrapper.call(module.exports, module.exports, chunkRequire, module, filename, ROOT);
  module.loaded = true;
  return module.exports;
}

/**
 * `node -e CODE [ARG...]`, as the executable is the pinned Node: the sandbox runs small Node programs that way with
 * the program's own binary (its network namespace's holder, `sandbox doctor`'s probes), and without this the CLI
 * would take `-e` for one of its flags. CODE gets `require` (Node's builtins) and `process.argv` [binary, ARG...].
 */
function evaluate(code, args) {
  process.argv = [process.argv[0], ...args];
  const run = vm.runInThisContext(Module.wrap(code), { filename: '[eval]' });
  const module = { exports: {} };
  run.call(module.exports, module.exports, require, module, '[eval]', process.cwd());
}

if (process.argv[2] === '-e' && process.argv[3] !== undefined) evaluate(process.argv[3], process.argv.slice(4));
else load('entry.cjs');
