/**
 * On a Node.js older than 22.18, the library says what it needs, as the CLI does (the machine's own Node is used when
 * it is older).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';

/** A `node` on PATH older than 22, if there is one (the pinned Node 24 is not). */
function oldNode(): string | undefined {
  const found = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  return found.find((bin) => {
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
    return Number(version.slice(1).split('.')[0]) < 22;
  });
}

test('import from agentpipe on an old Node: one clear line, the CLI says the same', (t) => {
  const node = oldNode();
  if (!node) return t.skip('no Node.js older than 22 on PATH here');
  const lib = spawnSync(
    node,
    [
      '--input-type=module',
      '-e',
      `import(${JSON.stringify(path.join(ROOT, 'dist/index.js'))}).catch((e) => { console.error(e.message); ` +
        `process.exit(3); })`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(lib.status, 3);
  assert.match(lib.stderr, /^agentpipe: Node\.js 22\.18 or newer is needed \(this is v\d+/);
  const cli = spawnSync(node, [path.join(ROOT, 'bin/agentpipe.js'), '--version'], { encoding: 'utf8' });
  assert.equal(cli.status, 1);
  assert.match(cli.stderr, /Node\.js 22\.18 or newer is needed/);
});
