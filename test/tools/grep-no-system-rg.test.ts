/**
 * Grep needs nothing installed (issue 29): with a PATH that holds no `rg` (an empty folder), the
 * real CLI's Grep still searches, with the ripgrep the `@vscode/ripgrep` dependency carries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { rgPath } from '@vscode/ripgrep';
import path from 'node:path';
import { runCli, parseLines, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test('Grep runs with no rg on PATH: the packaged ripgrep finds the lines', async () => {
  const dir = tempDir({ 'a.txt': 'alpha\nneedle here\n', 'b.txt': 'no\n' });
  const emptyPath = path.join(dir, 'empty-bin');
  mkdirSync(emptyPath);
  assert.notEqual(spawnSync('rg', ['--version'], { env: { PATH: emptyPath } }).error, undefined, 'no rg on PATH');
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Grep', id: 'toolu_g', input: { pattern: 'needle', output_mode: 'content' } }] },
    { text: 'found' },
  ]);
  const run = await runCli([...scriptedStreamArgs(script), '-p', 'search'], { cwd: dir, env: { PATH: emptyPath } });
  assert.equal(run.code, 0, run.stderr);
  const block = parseLines(run.stdout)
    .flatMap((l) => (l.type === 'user' && Array.isArray(l.message.content) ? l.message.content : []))
    .find((b: Record<string, unknown>) => b.tool_use_id === 'toolu_g');
  assert.notEqual(block?.is_error, true, JSON.stringify(block));
  assert.match(String(block?.content), /a\.txt:2:needle here/);
});

test('Grep runs no rg inside a working folder: not the packaged one, not one on PATH (agentpipe on its checkout)', async () => {
  const dir = tempDir({ 'a.txt': 'needle\n' });
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'rg'), `#!/bin/sh\ntouch '${path.join(dir, 'PWNED')}'\n`);
  chmodSync(path.join(bin, 'rg'), 0o755);
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Grep', id: 'toolu_g', input: { pattern: 'needle' } }] },
    { text: 'done' },
  ]);
  // The packaged binary's folder is a working folder, as when the project is agentpipe's own checkout.
  const packaged = path.dirname(realpathSync(rgPath));
  const args = [...scriptedStreamArgs(script), '--sandbox', 'off', '--add-dir', packaged, '-p', 'search'];
  const run = await runCli(args, { cwd: dir, env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } });
  assert.equal(run.code, 0, run.stderr);
  const block = parseLines(run.stdout)
    .flatMap((l) => (l.type === 'user' && Array.isArray(l.message.content) ? l.message.content : []))
    .find((b: Record<string, unknown>) => b.tool_use_id === 'toolu_g');
  assert.equal(block?.is_error, true, JSON.stringify(block));
  assert.match(String(block?.content), /Grep needs ripgrep/);
  assert.equal(existsSync(path.join(dir, 'PWNED')), false, 'the planted rg did not run');
});
