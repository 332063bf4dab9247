/**
 * Hooks and permission answers on a tape (the library, in process): a command hook's verdict and messages are
 * recorded and, with `replayTools: 'tape'`, answered without running it; a permission the client granted is recorded
 * and, replaying with no client, answered from the tape.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { query, type AgentMessage, type QueryOptions } from '../../src/index.ts';
import { normalizeStream } from '../../src/session/tape-verify.ts';
import { scratchDir } from '../helpers/temp.ts';
import { writeScript } from '../helpers/workspace.ts';
import { startFolder } from './scenario.ts';

async function collect(prompt: string, options: QueryOptions): Promise<AgentMessage[]> {
  const out: AgentMessage[] = [];
  for await (const message of query({ prompt, options })) out.push(message);
  return out;
}

test('a command hook is recorded, then answered from the tape without running (--replay-tools tape)', async () => {
  const cwd = startFolder();
  const tape = path.join(scratchDir('tape-hooks-'), 'hooks.jsonl');
  const script = writeScript(scratchDir('tape-hooks-script-'), [
    { tool_calls: [{ name: 'Read', id: 'toolu_read', input: { file_path: path.join(cwd, 'notes.txt') } }] },
    { text: 'Read it.' },
  ]);
  const context = { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'hook says hi' } };
  const settings = {
    hooks: {
      PostToolUse: [
        {
          matcher: 'Read',
          hooks: [{ type: 'command', command: `echo ran >> hook.log; echo '${JSON.stringify(context)}'` }],
        },
      ],
    },
  };
  const recorded = await collect('Read the notes.', {
    model: 'scripted',
    script,
    cwd,
    settings,
    persistSession: false,
    includeHookEvents: true,
    record: tape,
  });
  assert.equal(readFileSync(path.join(cwd, 'hook.log'), 'utf8'), 'ran\n');
  assert.ok(recorded.some((m) => m.type === 'system' && m.subtype === 'hook_response'));
  const lines = readFileSync(tape, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; event?: string });
  assert.ok(lines.some((l) => l.type === 'hook' && l.event === 'PostToolUse'));

  const folder = scratchDir('tape-hooks-empty-');
  const replayed = await collect('Read the notes.', {
    cwd: folder,
    settings,
    persistSession: false,
    includeHookEvents: true,
    replay: tape,
    replayTools: 'tape',
  });
  assert.deepEqual(normalizeStream(replayed, folder), normalizeStream(recorded, cwd));
  assert.deepEqual(readdirSync(folder), [], 'the hook did not run: no hook.log');
});

test('a permission the client granted is recorded; a replay with no client is answered from the tape', async () => {
  const cwd = startFolder();
  const tape = path.join(scratchDir('tape-permission-'), 'permission.jsonl');
  const script = writeScript(scratchDir('tape-permission-script-'), [
    {
      tool_calls: [
        { name: 'Write', id: 'toolu_write', input: { file_path: path.join(cwd, 'made.txt'), content: 'made\n' } },
      ],
    },
    { text: 'Written.' },
  ]);
  const asked: string[] = [];
  const recorded = await collect('Make a file.', {
    model: 'scripted',
    script,
    cwd,
    persistSession: false,
    record: tape,
    canUseTool: async (name) => {
      asked.push(name);
      return { behavior: 'allow' };
    },
  });
  assert.deepEqual(asked, ['Write']);
  assert.equal(readFileSync(path.join(cwd, 'made.txt'), 'utf8'), 'made\n');
  assert.match(
    readFileSync(tape, 'utf8'),
    /"type":"permission","tool_use_id":"toolu_write","name":"Write","answer":\{"behavior":"allow"/,
  );

  const folder = startFolder();
  const replayed = await collect('Make a file.', { cwd: folder, persistSession: false, replay: tape });
  assert.deepEqual(normalizeStream(replayed, folder), normalizeStream(recorded, cwd));
  assert.ok(existsSync(path.join(folder, 'made.txt')), 'the Write ran again, allowed by the recorded answer');
});

test('a denied call is on the tape with its decision and the reason the model was told; a replay decides it again', async () => {
  const cwd = startFolder();
  const tape = path.join(scratchDir('tape-denied-'), 'denied.jsonl');
  const script = writeScript(scratchDir('tape-denied-script-'), [
    {
      tool_calls: [{ name: 'Write', id: 'toolu_denied', input: { file_path: path.join(cwd, 'no.txt'), content: 'x' } }],
    },
    { text: 'It was denied.' },
  ]);
  const recorded = await collect('Make a file.', {
    model: 'scripted',
    script,
    cwd,
    persistSession: false,
    record: tape,
  });
  const line = readFileSync(tape, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>)
    .find((l) => l.type === 'tool');
  assert.equal(line?.decision, 'deny');
  assert.equal(line?.tool_use_id, 'toolu_denied');
  assert.match(line?.result.content, /needs approval|denied|permission/i);
  assert.equal(existsSync(path.join(cwd, 'no.txt')), false);
  const folder = startFolder();
  const replayed = await collect('Make a file.', { cwd: folder, persistSession: false, replay: tape });
  assert.deepEqual(normalizeStream(replayed, folder), normalizeStream(recorded, cwd));
});
