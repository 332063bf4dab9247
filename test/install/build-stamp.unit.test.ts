/**
 * scripts/build-stamp.ts: `npm test` skips the build only when dist/ is a finished build of the sources as they are.
 * Any change to a file the build reads, a new or removed one, or a removed output makes it build again.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildIsCurrent, clearStamp, writeStamp } from '../../scripts/build-stamp.ts';
import { tempDir } from '../helpers/workspace.ts';

/** A project with sources and a built dist/ (no stamp yet). */
function project(): string {
  const root = tempDir({ 'package.json': '{}', 'tsconfig.json': '{}' });
  const files: Record<string, string> = {
    'src/index.ts': 'export const a = 1;\n',
    'src/cli/entry.ts': 'export {};\n',
    'web/src/main.tsx': 'export {};\n',
    'dist/index.js': 'export const a = 1;\n',
    'dist/bin/entry.cjs': '',
    'dist/web/index.html': '<html></html>\n',
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

test('a stamp written after the build makes dist/ current; any change to what the build reads makes it stale', () => {
  const root = project();
  assert.equal(buildIsCurrent(root), false, 'no stamp: not built');
  writeStamp(root);
  assert.equal(buildIsCurrent(root), true);
  const changes: Array<[string, () => void, () => void]> = [
    ['a source edited', () => writeFileSync(path.join(root, 'src/index.ts'), 'export const a = 2;\n'), () => {}],
    ['a source added', () => writeFileSync(path.join(root, 'src/new.ts'), ''), () => {}],
    ['a source removed', () => rmSync(path.join(root, 'src/cli/entry.ts')), () => {}],
    [
      'a source renamed',
      () => renameSync(path.join(root, 'web/src/main.tsx'), path.join(root, 'web/src/other.tsx')),
      () => {},
    ],
    ['the lock file added', () => writeFileSync(path.join(root, 'package-lock.json'), '{}'), () => {}],
    ['the package edited', () => writeFileSync(path.join(root, 'package.json'), '{"a":1}'), () => {}],
    [
      'an output removed',
      () => rmSync(path.join(root, 'dist/web/index.html')),
      () => writeFileSync(path.join(root, 'dist/web/index.html'), ''),
    ],
  ];
  for (const [what, change, restore] of changes) {
    change();
    assert.equal(buildIsCurrent(root), false, what);
    restore();
    writeStamp(root);
    assert.equal(buildIsCurrent(root), true, `${what}, then built again`);
  }
  clearStamp(root);
  assert.equal(buildIsCurrent(root), false, 'a build that starts clears the stamp');
});
