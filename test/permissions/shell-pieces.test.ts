/**
 * The shell check's pieces on their own: getopt's reading of options (options.ts), bash's glob
 * expansion (glob.ts, against bash itself) and the kernel's path resolution (paths.ts). The
 * permission table runs them together, with git's repository checks.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseArgs, type OptionSpec, type ParsedArgs } from '../../src/tools/shell/options.ts';
import { expandPattern } from '../../src/tools/shell/glob.ts';
import { resolvedPath } from '../../src/tools/paths.ts';
import { tempDir } from '../helpers/workspace.ts';

const SORT: OptionSpec = {
  flags: 'r',
  valued: 'k',
  long: { reverse: 'none', 'random-sort': 'none', key: 'value', color: 'optional' },
  others: ['output', 'random-source', 'compress-program'],
};

/** The arguments read, failing the test when they are refused. */
function read(args: string[], spec: OptionSpec): ParsedArgs {
  const parsed = parseArgs(args, spec);
  assert.ok(!('refused' in parsed), JSON.stringify(parsed));
  return parsed;
}

test('options: clusters, glued and separate values, and long names as getopt_long resolves them', () => {
  assert.deepEqual(parseArgs(['-rk2', 'f'], SORT), {
    options: [{ name: 'r' }, { name: 'k', value: '2' }],
    operands: ['f'],
  });
  assert.deepEqual(parseArgs(['-k', '-x', 'f'], SORT), { options: [{ name: 'k', value: '-x' }], operands: ['f'] });
  assert.deepEqual(read(['--rev', '--ke=1'], SORT).options, [{ name: 'reverse' }, { name: 'key', value: '1' }]);
  assert.deepEqual(read(['--key', '1'], SORT).options, [{ name: 'key', value: '1' }]);
  assert.ok('refused' in parseArgs(['--o=x'], SORT), '--o can only be --output, which is not allowed');
  assert.ok('refused' in parseArgs(['--compress'], SORT));
  assert.ok('refused' in parseArgs(['--ran'], SORT), 'ambiguous: --random-sort, --random-source');
  assert.ok('refused' in parseArgs(['--reverse=1'], SORT), 'no value taken');
  assert.deepEqual(parseArgs(['--color', 'x'], SORT), { options: [{ name: 'color' }], operands: ['x'] });
  assert.deepEqual(parseArgs(['--', '--output=x'], SORT), { options: [], operands: ['--output=x'] });
  assert.ok('refused' in parseArgs(['--rev'], { ...SORT, exact: true }), 'an exact parser takes whole names');
  assert.deepEqual(read(['-n', '5', 'rm', '-f'], { valued: 'n', stopAtOperand: true }).operands, ['rm', '-f']);
});

test('globs expand to the words bash makes of them', () => {
  const dir = tempDir({ 'a.txt': '', 'b.txt': '', '.hidden': '', '-x': '', '[a].txt': '' });
  mkdirSync(path.join(dir, 'sub'));
  writeFileSync(path.join(dir, 'sub/c.txt'), '');
  symlinkSync(path.join(dir, 'sub'), path.join(dir, 'link'));
  const bash = (pattern: string) =>
    spawnSync('/bin/bash', ['-c', `printf '%s\\0' ${pattern}`], { cwd: dir, encoding: 'utf8' })
      .stdout.split('\0')
      .filter(Boolean)
      .sort();
  for (const [pattern, escaped] of [
    ['*', '*'],
    ['*.txt', '*.txt'],
    ['?.txt', '?.txt'],
    ['[ab].txt', '[ab].txt'],
    ['[!a].txt', '[!a].txt'],
    ['[[:alpha:]].txt', '[[:alpha:]].txt'],
    ['*/c.txt', '*/c.txt'],
    ['\\[a].txt', '\\[a\\].txt'],
    ['nothing*', 'nothing*'],
    ['.h*', '.h*'],
  ])
    assert.deepEqual(expandPattern(escaped!, dir)!.sort(), bash(pattern!), pattern);
  assert.deepEqual(expandPattern('.*', dir)!.sort(), ['.', '..', '.hidden'], 'a superset: older bash matched . and ..');
  assert.equal(expandPattern('{a,b}.txt', dir), undefined, 'brace expansion is not evaluated');
  assert.equal(expandPattern('[[=a=]]', dir), undefined);
});

test('paths resolve as the kernel resolves them: a link is followed before the .. after it', () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'out/inner'), { recursive: true });
  mkdirSync(path.join(dir, 'work'));
  symlinkSync(path.join(dir, 'out/inner'), path.join(dir, 'work/link'));
  const work = path.join(dir, 'work');
  assert.equal(resolvedPath(work, 'link/../f.txt'), path.join(dir, 'out/f.txt'));
  assert.equal(resolvedPath(work, 'link/../../work/x'), path.join(dir, 'work/x'));
  assert.equal(resolvedPath(work, 'missing/../x'), path.join(dir, 'work/x'));
  assert.equal(path.resolve(work, 'link/../f.txt'), path.join(work, 'f.txt'), 'as text, the other way');
});
