/**
 * Keeps V8 from optimizing WebAssembly in the CLI's own processes. The Bash permission check parses
 * every command with tree-sitter-bash, a WebAssembly module with one very large lexer function: V8
 * first compiles it with its baseline compiler (Liftoff), and once the function has run enough (a
 * command of ~16 characters is enough) it compiles it again with TurboFan, which took ~500 MB and
 * ~0.5 s for that one function: a one-turn run with `echo 123456789012` peaked at 585 MB against
 * 65 MB for `echo 12345678901` (issue 28, B7). Parsing a command line is a few microseconds of
 * work: baseline code is fast enough, and parsing 200 lines takes less time without the tier-up
 * (27 ms against 167 ms, measured with Node 24) since the optimizing compile no longer competes.
 *
 * `--liftoff-only` says so directly but only when the process starts (bin/agentpipe.js cannot pass
 * flags). `--wasm-tier-up-filter` is read when each function is compiled (V8 compiles WebAssembly
 * lazily, function by function), and any value other than -1 or a function's index leaves that
 * function without tier-up: set before the module is compiled, it keeps the whole module at its
 * baseline. Only the CLI's processes (a run, `serve`, `worker`, `acp`) do this, as for the young
 * generation (young-generation.ts): a library leaves its host's V8 flags alone (a host can start
 * node with `--liftoff-only` for the same effect).
 */
import { saveCodeCache } from './code-cache.ts';

let owned = false;
let done = false;

/** The process is the CLI's: the WebAssembly tier-up may be turned off when a module is about to compile. */
export function ownWasmTiering(): void {
  owned = true;
}

/** Called before a WebAssembly module compiles: in the CLI's processes, turns tier-up off (once). */
export function beforeWasmCompile(): void {
  if (!owned || done) return;
  done = true;
  // The code cache of this run first (bin/agentpipe.js): made after a flag changed, the next run would reject it.
  saveCodeCache();
  process.getBuiltinModule('node:v8').setFlagsFromString('--wasm-tier-up-filter=-2');
}
