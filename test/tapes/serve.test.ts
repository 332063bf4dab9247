/**
 * Tapes where every client opens a session of its own: `serve --replay` answers every connection from the tape (two at
 * once, each under a session id of its own), and `serve --record` is refused (a tape holds one session).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseLines, runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { writeScript } from '../helpers/workspace.ts';
import { converse, serveOn } from '../transport/serve-client.ts';

test('serve --replay: two clients at once each replay the tape in a session of their own; serve --record is refused', async () => {
  const dir = scratchDir('tape-serve-');
  const tape = path.join(dir, 'hello.jsonl');
  const script = writeScript(dir, [{ text: 'Hello from the tape.' }]);
  const recorded = await runCli(
    [
      '-p',
      'hi',
      '--model',
      'scripted',
      '--script',
      script,
      '--output-format',
      'stream-json',
      '--verbose',
      '--record',
      tape,
    ],
    { cwd: dir },
  );
  assert.equal(recorded.code, 0, recorded.stderr);
  const recordedId = parseLines(recorded.stdout)[0]!.session_id as string;

  const refused = await runCli(['serve', '--port', '0', '--record', path.join(dir, 'x.jsonl')]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /--record cannot be used with serve: a tape holds one session/);

  const { url } = await serveOn(['--no-token', '--replay', tape, '--cwd', scratchDir('tape-serve-cwd-')]);
  const [a, b] = await Promise.all([converse(url, 'hi'), converse(url, 'hi')]);
  const ids = new Set<string>();
  for (const { lines } of [a, b]) {
    const result = lines.at(-1)!;
    assert.equal(result.type, 'result');
    assert.equal(result.subtype, 'success', JSON.stringify(result));
    assert.equal(result.result, 'Hello from the tape.');
    ids.add(result.session_id as string);
  }
  assert.equal(ids.size, 2, 'a session id each');
  assert.ok(!ids.has(recordedId), "neither takes the tape's own");
});
