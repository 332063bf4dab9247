/**
 * Bundles the CLI into dist/bin/ (code splitting: each subcommand and each provider is its own
 * chunk, loaded when used). Packages stay external, except the two model SDKs and zod: bundled,
 * their hundreds of small modules load in one file (~35 ms instead of ~160 ms on every provider
 * run; zod ~14 ms instead of ~45 ms where a schema checks a request).
 *
 * Node builtins that a run may never call (child processes, crypto, fs/promises, os, readline,
 * timers/promises) are loaded on first call: each imported function becomes a wrapper that
 * fetches the module with `process.getBuiltinModule`. Loading them all up front cost ~15 ms of
 * every start-up (crypto alone pulls in ~20 internal modules). Only functions can be lazy: a
 * class or a constant imported from one of them fails the build, by name.
 */
import { rmSync } from 'node:fs';
import { build, type Plugin } from 'esbuild';

const BUNDLED = ['zod', 'commander', 'eventsource-parser'];

const LAZY_BUILTINS = new Set([
  'node:child_process',
  'node:crypto',
  'node:fs/promises',
  'node:os',
  'node:readline',
  'node:timers/promises',
]);

const lazyBuiltins: Plugin = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) =>
      LAZY_BUILTINS.has(args.path) ? { path: args.path, namespace: 'lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => {
      const real = process.getBuiltinModule(args.path) as Record<string, unknown>;
      const functions = Object.keys(real).filter(
        (name) => typeof real[name] === 'function' && /^[a-z_$][\w$]*$/.test(name) && name !== 'default',
      );
      const id = JSON.stringify(args.path);
      const contents = [
        `const load = () => process.getBuiltinModule(${id});`,
        // `import os from 'node:os'`: properties are read from the real module when used.
        'export default new Proxy({}, { get: (_, key) => Reflect.get(load(), key), has: (_, key) => key in load() });',
        ...functions.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
      ].join('\n');
      return { contents, loader: 'js' };
    });
  },
};

const externalPackages: Plugin = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      const bundled = BUNDLED.some((name) => args.path === name || args.path.startsWith(`${name}/`));
      return bundled ? undefined : { path: args.path, external: true };
    });
  },
};

rmSync('dist/bin', { recursive: true, force: true });
await build({
  entryPoints: ['src/cli/entry.ts'],
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  outdir: 'dist/bin',
  logLevel: 'warning',
  plugins: [lazyBuiltins, externalPackages],
  // Bundled CommonJS (commander) calls require() for builtins; an ES module has none of its own.
  banner: {
    js:
      "import { createRequire as __agentpipeRequire } from 'node:module';\nconst require = " +
      '__agentpipeRequire(import.meta.url);',
  },
});
