import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines } from '../helpers/cli.ts';
import { anthropic, CLAUDE, place, readLines, run, STREAM, text, transcripts } from './helpers.ts';

test('--fork-session goes on under a new id; the old transcript stays byte for byte; the fork resumes on its own', async () => {
  const p = place();
  const server = await anthropic([text('A1'), text('B1'), text('B2'), text('A2')]);
  const first = await run(p, [...STREAM, ...CLAUDE, 'one'], { env: server.env });
  const oldId = parseLines(first.stdout)[0].session_id;
  const [oldFile] = transcripts(p.home);
  const before = readFileSync(oldFile, 'utf8');

  const fork = await run(p, [...STREAM, ...CLAUDE, '--resume', oldId, '--fork-session', 'two (fork)'], {
    env: server.env,
  });
  assert.equal(fork.code, 0, fork.stderr);
  const forkId = parseLines(fork.stdout)[0].session_id;
  assert.notEqual(forkId, oldId);
  assert.equal(readFileSync(oldFile, 'utf8'), before, 'the old transcript is untouched');
  const forkFile = path.join(path.dirname(oldFile), `${forkId}.jsonl`);
  assert.equal(readLines(forkFile)[0].type, 'agentpipe_snapshot');

  // Resuming the fork (its own file only) sees the shared start and the fork's turn.
  const again = await run(p, [...STREAM, ...CLAUDE, '--resume', forkId, 'three'], { env: server.env });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(server.requests[2].body.messages, [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: [{ type: 'text', text: 'A1' }] },
    { role: 'user', content: 'two (fork)' },
    { role: 'assistant', content: [{ type: 'text', text: 'B1' }] },
    { role: 'user', content: 'three' },
  ]);
  // The original goes on without the fork's turns.
  const original = await run(p, [...STREAM, ...CLAUDE, '--resume', oldId, 'back'], { env: server.env });
  assert.equal(original.code, 0, original.stderr);
  assert.deepEqual(server.requests[3].body.messages, [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: [{ type: 'text', text: 'A1' }] },
    { role: 'user', content: 'back' },
  ]);

  const list = await run(p, ['sessions', '--json']);
  const sessions = JSON.parse(list.stdout);
  assert.deepEqual(new Set(sessions.map((s: any) => s.sessionId)), new Set([oldId, forkId]));
  const old = sessions.find((s: any) => s.sessionId === oldId);
  assert.equal(old.turns, 2);
  assert.equal(old.firstPrompt, 'one');
  const table = await run(p, ['sessions']);
  assert.match(table.stdout, /SESSION ID\s+STARTED \(UTC\)\s+TURNS\s+COST\s+TITLE OR FIRST PROMPT/);
  assert.match(table.stdout, new RegExp(`${oldId}.*  2  .*one`));
});

test('--resume-session-at keeps the history up to a message; bad combinations are refused', async () => {
  const p = place();
  const server = await anthropic([text('A1'), text('A2'), text('B')]);
  const first = await run(p, [...STREAM, ...CLAUDE, '--input-format', 'stream-json'], {
    env: server.env,
    stdin:
      ['one', 'two'].map((t) => JSON.stringify({ type: 'user', message: { role: 'user', content: t } })).join('\n') +
      '\n',
  });
  assert.equal(first.code, 0, first.stderr);
  const lines = parseLines(first.stdout);
  const id = lines[0].session_id;
  const a1 = lines.find((l) => l.type === 'assistant' && l.message.content[0].text === 'A1')!;
  const at = await run(
    p,
    [...STREAM, ...CLAUDE, '--resume', id, '--resume-session-at', a1.uuid, '--fork-session', 'instead'],
    { env: server.env },
  );
  assert.equal(at.code, 0, at.stderr);
  assert.deepEqual(server.requests[2].body.messages, [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: [{ type: 'text', text: 'A1' }] },
    { role: 'user', content: 'instead' },
  ]);

  const unknown = await run(p, [...CLAUDE, '--resume', id, '--resume-session-at', 'nope', 'x'], { env: server.env });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /--resume-session-at: no message nope/);
  const alone = await run(p, [...CLAUDE, '--resume-session-at', a1.uuid, 'x'], { env: server.env });
  assert.match(alone.stderr, /--resume-session-at requires --resume/);
  const forkAlone = await run(p, [...CLAUDE, '--fork-session', 'x'], { env: server.env });
  assert.match(forkAlone.stderr, /--fork-session requires --resume or --continue/);
});
