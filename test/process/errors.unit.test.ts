/**
 * The one error base: every error class of src/ derives from AgentpipeError, is recognised by
 * `isInstance` also when made by a second copy of the module (another bundle), keeps its cause,
 * and anything thrown has a message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/cli.ts';
import { AgentpipeError, errorCode, errorMessage } from '../../src/process/errors.ts';
import { ModelError } from '../../src/model/errors.ts';
import { FencedError } from '../../src/cluster/log/fence.ts';
import { RedisConnectionError } from '../../src/cluster/connection.ts';
import { UsageError } from '../../src/cli/options.ts';

test('a subclass is an instance of itself and of every class it derives from, not of its siblings', () => {
  const error = new FencedError('0b9c7f0e-3f64-4f7e-8a54-31c1d7e0a001', 'taken');
  assert.ok(FencedError.isInstance(error));
  assert.ok(AgentpipeError.isInstance(error));
  assert.equal(error.name, 'FencedError');
  assert.ok(error instanceof Error);
  assert.equal(UsageError.isInstance(error), false);
  assert.ok(!AgentpipeError.isInstance(new Error('plain')));
  for (const value of [undefined, null, 'FencedError', 42, {}])
    assert.equal(FencedError.isInstance(value), false, String(value));
});

test('isInstance recognises an error made by another copy of the module (a second bundle)', async () => {
  const url = pathToFileURL(path.join(ROOT, 'src/cluster/connection.ts'));
  url.searchParams.set('copy', '2');
  const copy: unknown = await import(url.href);
  assert.ok(typeof copy === 'object' && copy !== null && 'RedisConnectionError' in copy);
  const Other: unknown = copy.RedisConnectionError;
  assert.ok(typeof Other === 'function' && Other !== RedisConnectionError, 'a second class object');
  const error: unknown = Reflect.construct(Other, ['Redis is away']);
  assert.ok(!(error instanceof RedisConnectionError), 'instanceof cannot tell');
  assert.ok(RedisConnectionError.isInstance(error));
  assert.ok(AgentpipeError.isInstance(error));
});

test('cause is kept, and the constructor options of a subclass still work', () => {
  const cause = new Error('ECONNRESET');
  const error = new ModelError({ message: 'the connection was cut', kind: 'connection', cause });
  assert.equal(error.cause, cause);
  assert.ok(ModelError.isInstance(error) && error.retryable);
  assert.equal(new RedisConnectionError('away', { cause }).cause, cause);
});

test('errorMessage and errorCode read anything thrown', () => {
  assert.equal(errorMessage(new Error('boom')), 'boom');
  assert.equal(errorMessage('a string thrown'), 'a string thrown');
  assert.equal(errorMessage(undefined), 'undefined');
  assert.equal(errorMessage({ message: 'not an Error' }), '[object Object]');
  assert.equal(errorCode(Object.assign(new Error('x'), { code: 'ENOENT' })), 'ENOENT');
  assert.equal(errorCode({ code: 7 }), undefined);
  assert.equal(errorCode('ENOENT'), undefined);
  assert.equal(errorCode(null), undefined);
});

/** Every TypeScript file of src/: its path from the root and its text. */
function* sourceFiles(): Generator<{ file: string; text: string }> {
  for (const entry of readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    yield { file: path.relative(ROOT, file), text: readFileSync(file, 'utf8') };
  }
}

test('every error class in src/ derives from AgentpipeError and names itself (its first member)', () => {
  const offenders: string[] = [];
  for (const { file, text } of sourceFiles()) {
    for (const [, name, base] of text.matchAll(/class (\w+) extends (\w*Error)\b/g)) {
      if (name === 'AgentpipeError') continue;
      if (base === 'Error') offenders.push(`${file}: ${name} extends Error`);
      else if (!new RegExp(`class ${name} extends \\w+ \\{\\n  static override readonly errorName`).test(text))
        offenders.push(`${file}: ${name} sets no errorName`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('every silent catch in src/ says why it is silent (a comment on its line or the line before)', () => {
  const silent: string[] = [];
  for (const { file, text } of sourceFiles()) {
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (!/\.catch\(\(\) => (undefined|\{\})\)/.test(line) || line.includes('//')) return;
      const before = lines[i - 1]?.trim() ?? '';
      if (!before.startsWith('//') && !before.endsWith('*/')) silent.push(`${file}:${i + 1}`);
    });
  }
  assert.deepEqual(silent, []);
});
