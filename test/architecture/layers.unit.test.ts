/**
 * The layout shows the architecture: a folder of src/ imports only the folders before it in
 * LAYERS (lower layers never import higher ones), and every folder is a known layer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';

const LAYERS = [
  'process',
  'messages',
  'telemetry',
  'sandbox',
  'model',
  'tools',
  'agent',
  'harness',
  'pipeline',
  'session',
  'cluster',
  'transport',
  'sdk',
  'acp',
  'codex',
  'view',
  'tui',
  'cli',
];
const SRC = path.join(ROOT, 'src');
const IMPORT = /(?:from\s+|import\(\s*)'(\.{1,2}\/[^']+)'/g;

test('no layer imports a higher one', () => {
  const violations: string[] = [];
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const layer = path.relative(SRC, file).split(path.sep)[0]!;
    if (layer === path.basename(file)) continue; // src/index.ts, src/version.ts
    assert.ok(LAYERS.includes(layer), `src/${layer}/ is not a known layer`);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.relative(SRC, path.resolve(path.dirname(file), spec!)).split(path.sep);
      if (target.length < 2) continue;
      if (LAYERS.indexOf(target[0]!) > LAYERS.indexOf(layer))
        violations.push(`${path.relative(ROOT, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(violations, []);
});

test("docs/architecture.md's layer table lists the layers this test enforces, in their order", () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z]+)` \|/gm)].map(([, name]) => name);
  assert.deepEqual(rows, LAYERS);
});
