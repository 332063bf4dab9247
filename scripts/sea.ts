/**
 * `npm run dist`: the single executable, `release/agentpipe-<platform>-<arch>`: the pinned Node with the whole CLI
 * injected as a single executable application (Node's SEA), one file that runs where no Node is installed, or an
 * older one.
 *
 * 1. rolldown bundles src/cli/entry.ts with every package into CommonJS chunks, split where the CLI loads lazily (a
 *    SEA's `require` reaches only Node's builtins, so every package is inside the chunks).
 * 2. Each chunk gets V8's code cache, made by the pinned Node itself (the executable's V8).
 * 3. The chunks and their caches are assets of the executable; its main script (sea-main.cjs) is a small loader that
 *    compiles a chunk from its asset, with its cache, when the CLI first requires it: a run loads what it uses, as
 *    the launcher does from dist/, instead of one script holding the whole CLI.
 * 4. `node --experimental-sea-config` turns the loader and the assets into a blob; postject injects it into a copy of
 *    the pinned Node binary.
 *
 * The Bash grammar's two WebAssembly files are assets too. What else lives beside the code as files is not in it:
 * the viewer's pages (`view`) and the ripgrep binary (Grep uses `rg` on PATH). The print path, the providers, the
 * tools, `serve` and the harnesses are.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { rolldown } from 'rolldown';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'release');
const WORK = path.join(OUT, 'sea');
const NODE = path.join(ROOT, 'node_modules', 'node', 'bin', 'node');
/** The single executable of this platform. */
export const SEA_PATH = path.join(OUT, `agentpipe-${process.platform}-${process.arch}`);
/** The fuse Node's SEA support looks for (Node's documentation, "Single executable applications"). */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** Optional native add-ons some packages try and do without (ws's bufferutil, utf-8-validate). */
const OPTIONAL = ['bufferutil', 'utf-8-validate'];

/**
 * True when the executable is at least as new as the CLI's build (dist/bin/entry.cjs, which `npm run build` and every
 * test run make first): a test or the bench may use it as it is.
 */
export function seaIsCurrent(): boolean {
  const built = path.join(ROOT, 'dist/bin/entry.cjs');
  return existsSync(SEA_PATH) && existsSync(built) && statSync(SEA_PATH).mtimeMs >= statSync(built).mtimeMs;
}

/** Builds the executable (~25 s on a busy 2-core machine; 143 MB); `stdio`: where the tools' output goes. */
export async function buildSea(stdio: 'inherit' | 'ignore' = 'inherit'): Promise<string> {
  rmSync(WORK, { recursive: true, force: true });
  const chunks = path.join(WORK, 'chunks');
  mkdirSync(chunks, { recursive: true });
  const bundle = await rolldown({
    input: { entry: path.join(ROOT, 'src/cli/entry.ts') },
    platform: 'node',
    external: (id) => id.startsWith('node:') || OPTIONAL.includes(id),
    transform: { target: 'node24' },
    logLevel: 'silent',
  });
  await bundle.write({ dir: chunks, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs' });
  await bundle.close();
  const names = readdirSync(chunks).filter((name) => name.endsWith('.cjs'));
  // The code caches, made by the executable's own V8 (the pinned Node), each beside its chunk.
  execFileSync(NODE, [path.join(ROOT, 'scripts', 'sea-cache.cjs'), chunks, ...names], { stdio });
  const main = path.join(WORK, 'sea-main.cjs');
  copyFileSync(path.join(ROOT, 'scripts', 'sea-main.cjs'), main);
  const blob = path.join(WORK, 'agentpipe.blob');
  const config = path.join(WORK, 'sea-config.json');
  const assets: Record<string, string> = {
    // The Bash grammar (src/tools/shell/parse.ts reads them with node:sea when it runs as the executable).
    'web-tree-sitter.wasm': path.join(ROOT, 'node_modules/web-tree-sitter/web-tree-sitter.wasm'),
    'tree-sitter-bash.wasm': path.join(ROOT, 'node_modules/tree-sitter-bash/tree-sitter-bash.wasm'),
  };
  for (const name of names) {
    assets[`chunks/${name}`] = path.join(chunks, name);
    assets[`chunks/${name}.cache`] = path.join(chunks, `${name}.cache`);
  }
  const seaConfig = { main, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets };
  writeFileSync(config, JSON.stringify(seaConfig));
  execFileSync(NODE, ['--experimental-sea-config', config], { stdio });
  const partial = `${SEA_PATH}.partial`;
  copyFileSync(NODE, partial);
  const postject = path.join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js');
  execFileSync(NODE, [postject, partial, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE], { stdio });
  // Renamed into place once whole: a reader never runs half an executable.
  renameSync(partial, SEA_PATH);
  rmSync(WORK, { recursive: true, force: true });
  return SEA_PATH;
}

if (import.meta.main) {
  const file = await buildSea();
  console.log(`${path.relative(ROOT, file)}: ${(statSync(file).size / 1e6).toFixed(0)} MB`);
}
