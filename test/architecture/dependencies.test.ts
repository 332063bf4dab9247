/**
 * What an installed agentpipe may load at run time: a package src/ imports as a value (statically,
 * with `await import`, or `require`) must be a dependency, or an optional peer dependency that
 * the code reports clearly when missing, or an optional dependency the code does without (tree-sitter: the
 * WebAssembly grammar stands in). Packages used only for types (`import type`: erased by
 * the compiler) are devDependencies, so installs do not carry them (@anthropic-ai/sdk, openai:
 * ~47 MB). Published type declarations must not name a devDependency either.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../helpers/cli.ts';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports: Record<string, string | { types?: string }>;
};
const RUNTIME = new Set(
  [pkg.dependencies, pkg.optionalDependencies, pkg.peerDependencies].flatMap((list) => Object.keys(list ?? {})),
);

/** `@scope/name` or `name` of an import specifier (`openai/resources` → `openai`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(packageOf(specifier));

test('src/ loads at run time only dependencies (type-only packages are devDependencies)', async () => {
  const entryPoints = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.join(ROOT, 'src', file));
  const result = await build({
    entryPoints,
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    outdir: path.join(ROOT, 'dist/dependency-check'),
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [
      { name: 'external', setup: (b) => b.onResolve({ filter: /^[^./]/ }, (a) => ({ path: a.path, external: true })) },
    ],
  });
  const wrong = new Set<string>();
  const seen = new Set<string>();
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    for (const { path: target, external } of input.imports) {
      if (!external || isBuiltin(target)) continue;
      const name = packageOf(target);
      seen.add(name);
      if (!RUNTIME.has(name)) wrong.add(`${name} (imported by ${file})`);
    }
  }
  assert.deepEqual([...wrong], []);
  // The check sees the imports it is about: a package src/ loads lazily, and one it loads statically.
  assert.ok(seen.has('ws') && seen.has('commander'), [...seen].join(', '));
});

test('the published type declarations name no devDependency', () => {
  const dist = path.join(ROOT, 'dist');
  assert.ok(existsSync(path.join(dist, 'index.d.ts')), 'run npm run build first');
  const queue = Object.values(pkg.exports)
    .map((entry) => (typeof entry === 'string' ? undefined : entry.types))
    .filter((types): types is string => types !== undefined)
    .map((types) => path.join(ROOT, types));
  const seen = new Set(queue);
  const wrong: string[] = [];
  const IMPORT = /(?:from\s+|import\(\s*)'([^']+)'/g;
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (specifier!.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier!.replace(/\.[jt]s$/, '.d.ts'));
        if (!seen.has(target) && existsSync(target)) {
          seen.add(target);
          queue.push(target);
        }
      } else if (!isBuiltin(specifier!) && !RUNTIME.has(packageOf(specifier!)))
        wrong.push(`${specifier} (in ${path.relative(ROOT, file)})`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(seen.size > 10, `followed ${seen.size} declaration files`);
});
