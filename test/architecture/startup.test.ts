/**
 * What every CLI run loads before it does anything: the static import closure of the CLI entry.
 * A package or builtin in it is paid on each start (node:http's ESM facade alone loaded undici:
 * ~20 ms; zod's schemas ~10 ms). Anything else is imported where it is used (`await import`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../helpers/cli.ts';

/** Allowed at start-up. The builtins marked lazy are wrapped by scripts/bundle.ts: loaded on first call. */
const ALLOWED = new Set([
  'commander',
  // One small file, bundled into the entry chunk (scripts/bundle.ts): the queues' FIFO.
  'denque',
  'node:fs',
  'node:path',
  'node:url',
  'node:module',
  'node:string_decoder',
  // lazy (scripts/bundle.ts)
  'node:child_process',
  'node:crypto',
  'node:fs/promises',
  'node:os',
  'node:readline',
  'node:timers/promises',
]);

test('the CLI entry statically loads only commander and cheap or lazy builtins', async () => {
  const result = await build({
    entryPoints: [path.join(ROOT, 'src/cli/entry.ts')],
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    outdir: path.join(ROOT, 'dist/startup-check'),
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [
      { name: 'external', setup: (b) => b.onResolve({ filter: /^[^./]/ }, (a) => ({ path: a.path, external: true })) },
    ],
  });
  const inputs = result.metafile.inputs;
  const seen = new Set(['src/cli/entry.ts']);
  const queue = ['src/cli/entry.ts'];
  const loaded = new Map<string, string>(); // external → the file importing it
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const { path: target, kind } of inputs[file]?.imports ?? []) {
      if (kind !== 'import-statement') continue;
      if (!(target in inputs)) loaded.set(target, file);
      else if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  const extra = [...loaded].filter(([name]) => !ALLOWED.has(name)).map(([name, by]) => `${name} (imported by ${by})`);
  assert.deepEqual(extra, [], 'load these where they are used, with await import()');
  assert.ok(loaded.has('commander'), 'the check sees the static graph');
});
