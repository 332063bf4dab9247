/**
 * The parts of tapes on their own: the first difference and the nearest recorded request, the scene mapping (whole
 * paths only, one pass, the day and the platform), the writer (private file, secrets scrubbed), the reader (clear
 * errors naming the line, newer line types skipped) and the proxy's door (its token, no browser origins).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeDifference, firstDifference } from '../../src/model/tape/diff.ts';
import { RequestMatcher } from '../../src/model/tape/matcher.ts';
import { dateForms, pathMapper, placesMapper, sceneMapper } from '../../src/model/tape/scene.ts';
import { REDACTED, secretsOf, TapeWriter } from '../../src/model/tape/writer.ts';
import { readTape, TapeError } from '../../src/model/tape/reader.ts';
import { TAPE_VERSION, type TapeHeader } from '../../src/model/tape/format.ts';
import { startTapeProxy } from '../../src/harness/tape-proxy.ts';
import { scratchDir } from '../helpers/temp.ts';

const header = (over: Partial<TapeHeader> = {}): TapeHeader => ({
  type: 'tape',
  version: TAPE_VERSION,
  agentpipe: '0.0.0',
  created: '2026-01-02T03:04:05.000Z',
  cwd: '/work/project',
  date: '2026-01-02',
  platform: 'linux',
  session_id: '11111111-1111-4111-8111-111111111111',
  session: { model: 'scripted', provider: 'scripted', apiKeySource: 'none' },
  ...over,
});

test('the first difference: its path, both values, a long text cut around where it differs', () => {
  const recorded = { model: 'm', messages: [{ role: 'user', content: `${'x'.repeat(200)} Tidy the notes` }] };
  const current = { model: 'm', messages: [{ role: 'user', content: `${'x'.repeat(200)} Sort the notes` }] };
  const difference = firstDifference(recorded, current)!;
  assert.equal(difference.path, 'messages[0].content');
  const text = describeDifference(difference);
  assert.match(
    text,
    /^first difference at messages\[0\]\.content:\n {2}tape: {5}…"x+ Tidy the notes"\n {2}this run: …"x+ Sort/,
  );
  assert.ok(text.split('\n')[1]!.length < 150, 'cut to a window');
  assert.equal(firstDifference({ a: [1, 2] }, { a: [1, 2, 3] })!.path, 'a[2]');
  assert.match(describeDifference(firstDifference({ a: [1, 2] }, { a: [1, 2, 3] })!), /tape: +\(nothing\)/);
  assert.equal(firstDifference({ 'a-b': 1 }, { 'a-b': 2 })!.path, '["a-b"]');
  assert.equal(
    firstDifference({ a: 1, b: { c: 'x' } }, { b: { c: 'x' }, a: 1 }),
    undefined,
    'key order does not matter',
  );
});

test('the matcher: equal requests in any order, the nearest recorded one on a miss, a request asked once too often', () => {
  const entry = (n: number, text: string) => ({
    canonical: {
      messages: [
        { role: 'user', content: 'start' },
        { role: 'user', content: text },
      ],
    },
    value: n,
    label: `model request #${n}`,
  });
  const matcher = new RequestMatcher([entry(0, 'one'), entry(1, 'two'), entry(2, 'three')]);
  const take = (text: string) => matcher.take(entry(-1, text).canonical);
  assert.deepEqual(take('two'), { entry: entry(1, 'two') }, 'out of order (a subagent asked first)');
  assert.deepEqual(take('one'), { entry: entry(0, 'one') });
  const miss = take('thre');
  assert.ok('miss' in miss);
  assert.match(miss.miss, /^nearest recorded: model request #2; first difference at messages\[1\]\.content:/);
  assert.deepEqual(take('three'), { entry: entry(2, 'three') });
  const again = take('one');
  assert.ok('miss' in again && /#0 was asked again/.test(again.miss));
  const reusing = new RequestMatcher([entry(0, 'one')], { reuse: true });
  reusing.take(entry(-1, 'one').canonical);
  assert.deepEqual(reusing.take(entry(-1, 'one').canonical), { entry: entry(0, 'one') }, 'side requests repeat');
});

test('the scene: whole paths only, in one pass, a project folder name, the day in every form, the platform', () => {
  const map = pathMapper([
    ['/tmp/a', '/tmp/b'],
    ['/tmp/b', '/tmp/c'],
  ])!;
  assert.equal(map('/tmp/a/x and /tmp/b and /tmp/ab and /tmp/a.txt'), '/tmp/b/x and /tmp/c and /tmp/ab and /tmp/a.txt');
  assert.equal(pathMapper([['/same', '/same']]), undefined);
  const places = placesMapper(
    { cwd: ['/home/me/proj'], places: { HOME: '/home/me' } },
    { cwd: ['/tmp/run'], places: { HOME: '/root/home' } },
  )!;
  assert.equal(
    places('/home/me/proj/a /home/me/.codex/x -home-me-proj/memory'),
    '/tmp/run/a /root/home/.codex/x -tmp-run/memory',
  );
  assert.deepEqual(dateForms('2026-11-05'), [
    'Thursday, November 5, 2026',
    'November 5, 2026',
    '2026-11-05',
    '11/5/2026',
  ]);
  const scene = sceneMapper(
    { cwd: ['/now'], places: {}, date: '2026-11-06', platform: 'darwin' },
    { cwd: ['/then'], places: {}, date: '2026-11-05', platform: 'linux' },
  )!;
  assert.equal(
    scene('Working folder: /now\nPlatform: darwin; date: 2026-11-06 (Friday, November 6, 2026)'),
    'Working folder: /then\nPlatform: linux; date: 2026-11-05 (Thursday, November 5, 2026)',
  );
});

test('the writer: the header first, a private file, the secrets it knows scrubbed from every line', () => {
  const file = path.join(scratchDir('tape-writer-'), 't.jsonl');
  const secrets = secretsOf({ ANTHROPIC_API_KEY: 'sk-ant-abcdefgh-123', OPENAI_API_KEY: 'short', PATH: '/bin' }, [
    'user-given-key-0000',
  ]);
  assert.deepEqual(
    secrets,
    ['sk-ant-abcdefgh-123', 'user-given-key-0000'],
    'key variables and given keys, not short ones',
  );
  const writer = new TapeWriter(file, header(), secrets, () => {});
  writer.write({ type: 'prompt', uuid: 'u', content: 'my key is sk-ant-abcdefgh-123 and user-given-key-0000' });
  writer.close();
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(JSON.parse(lines[0]!).type, 'tape');
  assert.equal(JSON.parse(lines[1]!).content, `my key is ${REDACTED} and ${REDACTED}`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

test('the reader: clear errors that name the line; a line type of a newer agentpipe is skipped', () => {
  const dir = scratchDir('tape-reader-');
  const write = (name: string, lines: unknown[]) => {
    const file = path.join(dir, name);
    writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
    return file;
  };
  const fails = (file: string, message: RegExp) =>
    assert.throws(
      () => readTape(file),
      (error: unknown) => error instanceof TapeError && message.test(error.message),
    );
  fails(path.join(dir, 'missing.jsonl'), /cannot read the tape .*ENOENT/);
  fails(
    write('no-header.jsonl', [{ type: 'prompt', uuid: 'u', content: 'x' }]),
    /:1: the first line is not a tape header/,
  );
  fails(write('v2.jsonl', [{ ...header(), version: 2 }]), /:1: tape version 2: this agentpipe reads version 1/);
  fails(write('bad-json.jsonl', [header(), '{"type": "prompt",']), /:2: not JSON/);
  fails(write('bad-line.jsonl', [header(), { type: 'model_response', n: -1, events: [] }]), /:2: .*model_response\.n/);
  const tape = readTape(
    write('newer.jsonl', [header(), { type: 'hologram', x: 1 }, { type: 'prompt', uuid: 'u', content: 'hi' }]),
  );
  assert.deepEqual(
    tape.lines.map((l) => l.type),
    ['prompt'],
  );
  const moved = readTape(
    write('moved.jsonl', [header(), { type: 'prompt', uuid: 'u', content: 'read /work/project/a.txt' }]),
    { cwd: '/elsewhere' },
  );
  assert.deepEqual(moved.lines[0], { type: 'prompt', uuid: 'u', content: 'read /elsewhere/a.txt' });
});

test("the proxy's door: its token in the path, no browser origins; a replay miss in the API's own error shape", async () => {
  let told = '';
  const proxy = await startTapeProxy({
    mode: 'replay',
    basePath: '/v1',
    lines: [],
    file: 't.jsonl',
    onMismatch: (text) => (told = text),
  });
  try {
    const base = new URL(proxy.url);
    assert.match(base.pathname, /^\/[0-9a-f]{32}\/v1$/);
    const post = (url: string, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"model":"m"}',
      });
    assert.equal((await post(`${base.origin}/v1/messages`)).status, 404, 'no token: not found');
    assert.equal((await post(`${proxy.url}/messages`, { origin: 'https://evil.example' })).status, 403);
    const miss = await post(`${proxy.url}/messages`);
    assert.equal(miss.status, 400);
    const body = (await miss.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /^Replay: the request POST \/v1\/messages is not on the tape t\.jsonl/);
    assert.equal(told, body.error.message);
    const gemini = (await (await post(`${proxy.url}beta/models/g:streamGenerateContent`)).json()) as {
      error: { status: string };
    };
    assert.equal(gemini.error.status, 'INVALID_ARGUMENT', "Gemini's error shape");
  } finally {
    await proxy.close();
  }
});

test('a path cut across streamed deltas is mapped as a whole and cut again where it was (A→B→C cuts as A→C)', async () => {
  const { mapTimedEvents, mapChunks } = await import('../../src/model/tape/deltas.ts');
  const events = (pieces: string[]) =>
    pieces.map((partial_json, i): [number, any] => [
      i,
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } },
    ]);
  const recorded = events(['{"file_path":"/tmp/re', 'c/notes.txt","x":"/tmp/r', 'ec"}']);
  const toB = pathMapper([['/tmp/rec', '/var/replay']])!;
  const inB = mapTimedEvents(recorded, toB);
  const pieces = (list: Array<[number, any]>) => list.map(([, e]) => e.delta.partial_json as string);
  assert.equal(pieces(inB).join(''), '{"file_path":"/var/replay/notes.txt","x":"/var/replay"}');
  assert.deepEqual(pieces(inB), ['{"file_path":"/var/replay', '/notes.txt","x":"/var/replay', '"}']);
  assert.deepEqual(pieces(recorded), ['{"file_path":"/tmp/re', 'c/notes.txt","x":"/tmp/r', 'ec"}'], 'a copy');
  const toC = pathMapper([['/var/replay', '<cwd>']])!;
  const direct = pathMapper([['/tmp/rec', '<cwd>']])!;
  assert.deepEqual(pieces(mapTimedEvents(inB, toC)), pieces(mapTimedEvents(recorded, direct)));
  // A wrapped CLI's chat completions chunks: the tool call's arguments cut across frames and across chunks.
  const frame = (args: string) => {
    const call = { index: 0, function: { arguments: args } };
    return `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [call] } }] })}\n\n`;
  };
  const wire = frame('{"path":"/tmp/re') + frame('c/a.txt"}') + 'data: [DONE]\n\n';
  const chunks = mapChunks(
    [
      [0, wire.slice(0, 50)],
      [5, wire.slice(50)],
    ],
    'openai-chat',
    'text/event-stream',
    toB,
  );
  const joined = chunks.map(([, text]) => text).join('');
  const args = [...joined.matchAll(/"arguments":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
  assert.equal(args.join(''), '{"path":"/var/replay/a.txt"}');
  assert.match(joined, /data: \[DONE\]\n\n$/);
});

test('restoring a tape\'s files never writes outside the folder: no "..", no file through a link, no setuid bits', async () => {
  const { restoreFiles } = await import('../../src/tools/tape-files.ts');
  const { existsSync, readdirSync } = await import('node:fs');
  const outside = scratchDir('tape-outside-');
  assert.throws(
    () => restoreFiles(scratchDir('tape-in-'), [{ path: '../escape.txt', text: 'x' }]),
    /outside its folder/,
  );
  const root = scratchDir('tape-in-');
  assert.throws(() =>
    restoreFiles(root, [
      { path: 'a', link: outside },
      { path: 'a/x', text: 'through the link' },
    ]),
  );
  assert.deepEqual(readdirSync(outside), [], 'nothing was written through the link');
  const nested = scratchDir('tape-in-');
  restoreFiles(nested, [
    { path: 'b', link: outside },
    { path: 'c', text: 'ok', mode: 0o4755 },
  ]);
  assert.throws(() => restoreFiles(nested, [{ path: 'b/y', link: 'z' }]), /outside its folder/);
  assert.equal(existsSync(path.join(outside, 'y')), false);
  assert.equal(statSync(path.join(nested, 'c')).mode & 0o7777, 0o755, 'the setuid bit is dropped');
});
