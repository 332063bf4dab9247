/**
 * What a scripted print run into a pipe really loads, seen from inside the process: two files of
 * the bundle (the entry chunk and rolldown's runtime) and none of Node's heavier builtins. Each of
 * these cost a one-turn run 1-3 ms when something pulled it in at start-up (issue 13); a change
 * that brings one back fails here by name instead of showing only as a slower bench. With telemetry off, no
 * OpenTelemetry package loads either (issue 32).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

/** Builtins no print run needs: streams (stdout is written with fs.write), the network, timing, children. */
const HEAVY = [
  'stream',
  'net',
  'tty',
  'http',
  'https',
  'crypto',
  'child_process',
  'fs/promises',
  'readline',
  'perf_hooks',
  'v8',
  'zlib',
  'worker_threads',
];

test('a scripted print run into a pipe loads the entry chunk and no heavy builtin', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'Light.' }]);
  const probe = path.join(dir, 'probe.cjs');
  const out = path.join(dir, 'loaded.json');
  writeFileSync(
    probe,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({
      builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)),
      files: Object.keys(require.cache),
    })));\n`,
  );
  const home = scratchDir('loads-home-');
  for (const run of ['first (writes the code cache)', 'second (reads it)']) {
    const result = await runCli(['-p', 'hi', ...scriptedStreamArgs(script)], {
      cwd: dir,
      // node:v8 loads on a timer 50 ms into a run (young-generation.ts): on a busy machine the run
      // outlasts it, so the timer is moved past the run and only what start-up loads is seen.
      env: {
        AGENTPIPE_HOME: home,
        NODE_OPTIONS: `--require ${probe}`,
        AGENTPIPE_YOUNG_GENERATION_DELAY_MS: '600000',
      },
    });
    assert.equal(result.code, 0, result.stderr);
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as { builtins: string[]; files: string[] };
    const bundle = loaded.files.filter((file) => file.includes(`${path.sep}dist${path.sep}bin${path.sep}`));
    assert.deepEqual(
      bundle.map((file) => path.basename(file).replace(/-[\w-]{8}\.cjs$/, '.cjs')).sort(),
      ['entry.cjs', 'rolldown-runtime.cjs'],
      `${run}: ${bundle.join(', ')}`,
    );
    assert.deepEqual(
      HEAVY.filter((name) => loaded.builtins.includes(name)),
      [],
      `${run}: load these where they are used`,
    );
    assert.deepEqual(
      openTelemetryFiles(loaded.files),
      [],
      `${run}: telemetry is off, so no OpenTelemetry package loads`,
    );
  }
});

/** The files of OpenTelemetry packages among `files`. */
const openTelemetryFiles = (files: string[]) =>
  files.filter((file) => file.includes(`${path.sep}@opentelemetry${path.sep}`));

test('with telemetry on, the OpenTelemetry packages load and stdout still carries only the stream', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'Traced.' }]);
  const probe = path.join(dir, 'probe.cjs');
  const out = path.join(dir, 'loaded.json');
  writeFileSync(
    probe,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, ` +
      `JSON.stringify(Object.keys(require.cache))));\n`,
  );
  const result = await runCli(['-p', 'hi', ...scriptedStreamArgs(script)], {
    cwd: dir,
    env: {
      AGENTPIPE_HOME: scratchDir('loads-home-'),
      NODE_OPTIONS: `--require ${probe}`,
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_METRICS_EXPORTER: 'none',
    },
  });
  assert.equal(result.code, 0, result.stderr);
  for (const line of result.stdout.trim().split('\n')) assert.ok(line.startsWith('{"type":'), line);
  assert.match(result.stderr, /"name":"invoke_agent agentpipe"/);
  // The OpenTelemetry packages are bundled into lazy chunks (scripts/bundle.ts): one of them loaded.
  const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
  const chunks = loaded.filter((file) => file.includes(`${path.sep}dist${path.sep}bin${path.sep}`));
  assert.ok(
    chunks.some((file) => readFileSync(file, 'utf8').includes('BatchSpanProcessor')),
    `the SDK's chunk loaded: ${chunks.map((f) => path.basename(f)).join(', ')}`,
  );
});
