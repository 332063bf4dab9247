/**
 * Bundles the CLI into dist/bin/ with rolldown. Everything the entry imports statically (what
 * every run loads: the print path, commander) is one chunk, `entry.cjs`; each subcommand, provider
 * and harness the entry imports with `await import()` is its own chunk, loaded when used. Split
 * the way esbuild splits (a chunk per set of importers), the print path was ~35 files joined by
 * ~95 imports, and resolving each import cost Node's loader ~0.1 ms: one chunk starts ~10 ms
 * sooner. Packages stay external, except zod, commander and eventsource-parser: bundled, their
 * many small modules load as one file (denque: one small file on the print path); and OpenTelemetry's packages, in the
 * lazy chunks that load only with telemetry on (hundreds of small modules: ~600 ms of a run's start, bundled ~200 ms).
 *
 * Node builtins go through `process.getBuiltinModule`, never Node's ES module facade for them
 * (see `builtins` below), and those a run may never call (child processes, crypto, fs/promises,
 * os, readline, timers/promises) are loaded on first call: each imported function becomes a
 * wrapper that fetches the module. Loading them all up front cost ~15 ms of every start-up
 * (crypto alone pulls in ~20 internal modules). Only functions can be lazy: a class or a constant
 * imported from one of them fails the build, by name.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { rolldown, type ChunkingContext, type Plugin } from 'rolldown';

const ENTRY = path.resolve('src/cli/entry.ts');
const OUT = 'dist/bin';

const BUNDLED = ['zod', 'commander', 'eventsource-parser', 'denque', '@opentelemetry'];

const LAZY_BUILTINS = new Set([
  'node:child_process',
  'node:crypto',
  'node:fs/promises',
  'node:os',
  'node:readline',
  'node:timers/promises',
]);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const BUILTIN = '\0builtin:';
const BUILTIN_CJS = '\0builtin-cjs:';

/**
 * The properties of builtin `id` that load more of Node when read: getters, and the lazy data
 * properties that load their module when merely described (`fs.Dir` loads internal/fs/dir). Each
 * is found in a fresh process, since one read may load what the next key needs too.
 */
function lazyProperties(id: string): Set<string> {
  const probe = `
    const [id, from] = process.argv.slice(1);
    const real = process.getBuiltinModule(id);
    const keys = Object.keys(real);
    const getters = [];
    for (let i = Number(from); i < keys.length; i++) {
      const loaded = process.moduleLoadList.length;
      const descriptor = Object.getOwnPropertyDescriptor(real, keys[i]);
      if (!('value' in descriptor)) getters.push(keys[i]);
      else if (process.moduleLoadList.length !== loaded) {
        console.log(JSON.stringify({ getters, loads: keys[i], next: i + 1 }));
        process.exit(0);
      }
    }
    console.log(JSON.stringify({ getters, next: keys.length }));`;
  const lazy = new Set<string>();
  for (let from = 0; ;) {
    const out = execFileSync(process.execPath, ['-e', probe, id, String(from)], { encoding: 'utf8' });
    const found = JSON.parse(out) as { getters: string[]; loads?: string; next: number };
    for (const key of found.getters) lazy.add(key);
    if (found.loads === undefined) return lazy;
    lazy.add(found.loads);
    from = found.next;
  }
}

/** Source of an object that reads builtin `id`'s properties from the real module when used (a LAZY builtin). */
const lazyObject = (quoted: string) =>
  `new Proxy({}, { get: (_, key) => Reflect.get(process.getBuiltinModule(${quoted}), key), ` +
  `has: (_, key) => key in process.getBuiltinModule(${quoted}) })`;

/** An ES module standing for builtin `id`: see `builtins`. */
function builtinModule(id: string): string {
  const real = process.getBuiltinModule(id) as Record<string, unknown>;
  const quoted = JSON.stringify(id);
  const names = Object.keys(real).filter((name) => IDENTIFIER.test(name) && name !== 'default');
  const wrapper = (name: string) => `export function ${name}(...args) { return load().${name}(...args); }`;
  // Lower-case functions only: a class (or a constant) cannot be a wrapper.
  const isFunction = (name: string) => typeof real[name] === 'function' && /^[a-z_$]/.test(name);
  if (LAZY_BUILTINS.has(id)) {
    return [
      `const load = () => process.getBuiltinModule(${quoted});`,
      // `import os from 'node:os'`: properties are read from the real module when used.
      `export default ${lazyObject(quoted)};`,
      ...names.filter(isFunction).map(wrapper),
    ].join('\n');
  }
  const lazy = lazyProperties(id);
  return [
    `const real = process.getBuiltinModule(${quoted});`,
    'const load = () => real;',
    'export default real;',
    ...names.filter((name) => !lazy.has(name)).map((name) => `export const ${name} = real.${name};`),
    // A lazy function (fs.opendir) stays lazy: a wrapper reads it on its first call.
    ...names.filter((name) => lazy.has(name) && isFunction(name)).map(wrapper),
  ].join('\n');
}

/**
 * Every `node:` import goes through `process.getBuiltinModule` instead of Node's ES module facade
 * for builtins. The facade reads every export up front, getters included: `import { readFileSync }
 * from 'node:fs'` loads fs/promises, readline and the streams behind `fs.promises` and
 * `fs.ReadStream` (~3 ms of every start-up). Here a module's plain properties are exported as
 * they are and its lazy ones only as function wrappers (importing any other fails the build, by
 * name). Bundled CommonJS (commander) gets the builtin itself from require(), or for a LAZY one
 * a proxy that loads it on first use (commander requires node:child_process for a feature we
 * never use: ~3 ms of every start-up).
 */
const builtins: Plugin = {
  name: 'builtins',
  resolveId(source, importer, extra) {
    if (!source.startsWith('node:')) return null;
    // rolldown's own runtime helpers keep their plain imports.
    if (importer === undefined || !path.isAbsolute(importer)) return { id: source, external: true };
    return (extra.kind === 'require-call' ? BUILTIN_CJS : BUILTIN) + source;
  },
  load(id) {
    if (id.startsWith(BUILTIN)) return builtinModule(id.slice(BUILTIN.length));
    if (!id.startsWith(BUILTIN_CJS)) return null;
    const builtin = id.slice(BUILTIN_CJS.length);
    const quoted = JSON.stringify(builtin);
    const value = LAZY_BUILTINS.has(builtin) ? lazyObject(quoted) : `process.getBuiltinModule(${quoted})`;
    return `module.exports = ${value};`;
  },
};

const externalPackages: Plugin = {
  name: 'external-packages',
  resolveId(source, importer) {
    if (importer === undefined || /^[./\0]/.test(source) || path.isAbsolute(source)) return null;
    const bundled = BUNDLED.some((name) => source === name || source.startsWith(`${name}/`));
    return bundled ? null : { id: source, external: true };
  },
};

/** The modules the entry imports statically, directly or not: every run loads them. */
let startup: Set<string> | undefined;
function loadedAtStartup(id: string, context: ChunkingContext): boolean {
  if (!startup) {
    startup = new Set([ENTRY]);
    for (const seen of startup) {
      for (const imported of context.getModuleInfo(seen)?.importedIds ?? []) startup.add(imported);
    }
  }
  return startup.has(id);
}

rmSync(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  input: { entry: ENTRY },
  platform: 'node',
  plugins: [builtins, externalPackages],
  transform: { target: 'node22' },
  logLevel: 'warn',
});
await bundle.write({
  dir: OUT,
  // CommonJS: bin/agentpipe.js compiles the entry itself, with a code cache made after a run
  // (see there), which Node offers for scripts only. import() of a package becomes require():
  // Node >= 22.12 requires ES modules too, and a script compiled that way has no import().
  format: 'cjs',
  dynamicImportInCjs: false,
  entryFileNames: '[name].cjs',
  chunkFileNames: '[name]-[hash].cjs',
  codeSplitting: {
    groups: [{ debugName: 'startup', name: (id, context) => (loadedAtStartup(id, context) ? 'startup' : null) }],
  },
});
await bundle.close();
