/**
 * A stream-json session of three prompts recorded on one tape against the fake Anthropic API: `agentpipe replay
 * --verify` says `same`; `--replay` with no prompt replays all three (same stream, same files), with the same prompts
 * on stdin it checks each, and a changed second prompt leaves the tape there (exit 1, the difference named). And
 * `agentpipe script` from a saved transcript (not a tape): a turn per model answer, even when the server gives every
 * answer the same message id (the fake API does), which the scripted model plays back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeStream } from '../../src/session/tape-verify.ts';
import type { AgentMessage } from '../../src/messages/types.ts';
import { projectDir } from '../../src/session/paths.ts';
import { parseLines, runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { writeScript } from '../helpers/workspace.ts';
import { anthropicBlock, anthropicStream, startFakeServer, type Reply } from '../model/fake-servers.ts';
import { startFolder } from './scenario.ts';

const STREAM = ['--output-format', 'stream-json', '--verbose', '--permission-mode', 'bypassPermissions'];
const FLAGS = ['--input-format', 'stream-json', ...STREAM, '--setting-sources', ''];
const PROMPTS = ['Add one to log.txt', 'Add two to log.txt', 'How many lines has log.txt?'];
const userLine = (text: string) =>
  `${JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null })}\n`;

const call = (id: string, name: string, input: unknown): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [
      anthropicBlock(0, { type: 'tool_use', id, name, input: {} }, [
        { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      ]),
    ],
    'tool_use',
  ),
});
const say = (text: string, thinking?: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [
      ...(thinking
        ? [anthropicBlock(0, { type: 'thinking', thinking: '' }, [{ type: 'thinking_delta', thinking }])]
        : []),
      anthropicBlock(thinking ? 1 : 0, { type: 'text', text: '' }, [{ type: 'text_delta', text }]),
    ],
    'end_turn',
  ),
});

/** The fake Anthropic API answering `replies` in order; stopped by the caller. */
async function fakeApi(replies: Reply[]) {
  let n = 0;
  const server = await startFakeServer((request) =>
    request.method === 'POST' && request.path.startsWith('/v1/messages')
      ? replies[Math.min(n++, replies.length - 1)]!
      : { kind: 'json', status: 404, body: {} },
  );
  return { server, asked: () => n };
}

/** Records the three prompts in one stream-json process; the API is stopped before this returns. */
async function recordPrompts() {
  const cwd = startFolder();
  const tape = path.join(scratchDir('tape-prompts-'), 'prompts.tape.jsonl');
  const { server, asked } = await fakeApi([
    call('toolu_one', 'Bash', { command: 'echo one >> log.txt' }),
    say('Added one.'),
    call('toolu_two', 'Bash', { command: 'echo two >> log.txt' }),
    say('Added two.'),
    call('toolu_read', 'Read', { file_path: path.join(cwd, 'log.txt') }),
    say('Two lines.', 'Count them.'),
  ]);
  try {
    const run = await runCli(['--model', 'claude-sonnet-4-5', ...FLAGS, '--record', tape], {
      cwd,
      stdin: PROMPTS.map(userLine).join(''),
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-prompts-0123456789' },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(asked(), 6);
    return { cwd, tape, lines: parseLines(run.stdout) as AgentMessage[] };
  } finally {
    await server.close();
  }
}

test('three stream-json prompts on one tape: verify says same; replayed with and without the prompts, a changed one', async () => {
  const { cwd, tape, lines } = await recordPrompts();
  const results = lines.filter((m) => m.type === 'result') as Array<AgentMessage & { result: string }>;
  assert.deepEqual(
    results.map((r) => r.result),
    ['Added one.', 'Added two.', 'Two lines.'],
  );
  const kinds = readFileSync(tape, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { type: string }).type);
  assert.equal(kinds.filter((k) => k === 'prompt').length, 3);

  const offline = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: '' };
  const verified = await runCli(['replay', tape, '--verify'], { env: offline });
  assert.equal(verified.code, 0, verified.stderr);
  assert.equal(verified.stdout, 'same\n');

  // With no prompt (no stream-json input), the tape's own prompts run; with them on stdin, each is checked.
  const replay = async (stdin: string) => {
    const folder = startFolder();
    const flags = stdin ? FLAGS : [...STREAM, '--setting-sources', ''];
    const run = await runCli([...flags, '--replay', tape], { cwd: folder, stdin, env: offline });
    return { folder, run, lines: parseLines(run.stdout) as AgentMessage[] };
  };
  const expected = normalizeStream(lines, cwd);
  for (const stdin of ['', PROMPTS.map(userLine).join('')]) {
    const again = await replay(stdin);
    assert.equal(again.run.code, 0, again.run.stderr);
    assert.deepEqual(normalizeStream(again.lines, again.folder), expected, stdin ? 'the prompts given' : 'the tape’s');
    assert.equal(readFileSync(path.join(again.folder, 'log.txt'), 'utf8'), 'one\ntwo\n');
  }

  const changed = await replay([PROMPTS[0]!, 'Add three to log.txt', PROMPTS[2]!].map(userLine).join(''));
  assert.equal(changed.run.code, 1);
  const ends = changed.lines.filter((m) => m.type === 'result') as Array<AgentMessage & { is_error: boolean }>;
  assert.equal(ends[0]!.is_error, false, 'the first prompt is on the tape');
  assert.equal(ends[1]!.is_error, true);
  assert.match(JSON.stringify(ends[1]), /not on the tape.*first difference at messages\[\d+\]/);
  assert.match(JSON.stringify(ends[1]), /Add three to log\.txt/);
});

test('agentpipe script from a saved transcript: a turn per answer (thinking, text, tool calls, model); it plays back', async () => {
  const cwd = startFolder();
  const home = scratchDir('tape-transcript-home-');
  const { server } = await fakeApi([
    call('toolu_read', 'Read', { file_path: path.join(cwd, 'notes.txt') }),
    say('It says alpha and beta.', 'Read it first.'),
  ]);
  let lines: AgentMessage[];
  try {
    const run = await runCli(['-p', 'What is in notes.txt?', '--model', 'claude-sonnet-4-5', ...STREAM], {
      cwd,
      env: { AGENTPIPE_HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-transcript-0123' },
    });
    assert.equal(run.code, 0, run.stderr);
    lines = parseLines(run.stdout) as AgentMessage[];
  } finally {
    await server.close();
  }
  const sessionId = lines[0]!.session_id;
  const folder = projectDir(cwd, home);
  assert.ok(readdirSync(folder).includes(`${sessionId}.jsonl`), 'the session was saved');
  const transcript = path.join(folder, `${sessionId}.jsonl`);

  const script = await runCli(['script', transcript], { env: { AGENTPIPE_HOME: home } });
  assert.equal(script.code, 0, script.stderr);
  const { turns } = JSON.parse(script.stdout) as { turns: Array<Record<string, any>> };
  assert.equal(turns.length, 2);
  assert.deepEqual(turns[0]!.tool_calls, [
    { name: 'Read', input: { file_path: path.join(cwd, 'notes.txt') }, id: 'toolu_read' },
  ]);
  assert.equal(turns[1]!.thinking, 'Read it first.');
  assert.equal(turns[1]!.text, 'It says alpha and beta.');
  assert.ok(
    turns.every((t) => t.model === 'claude-sonnet-4-5-20250929'),
    'each turn keeps its model',
  );

  const file = writeScript(scratchDir('tape-transcript-script-'), turns);
  const played = await runCli(['-p', 'What is in notes.txt?', '--model', 'scripted', '--script', file, ...STREAM], {
    cwd: startFolder(),
    env: { AGENTPIPE_HOME: home },
  });
  assert.equal(played.code, 0, played.stderr);
  const blocks = (messages: Array<Record<string, any>>) =>
    messages
      .filter((m) => m.type === 'assistant')
      .flatMap((m) => m.message.content)
      .map((b: Record<string, unknown>) => ({ ...b, citations: undefined, signature: undefined }));
  assert.deepEqual(blocks(parseLines(played.stdout)), blocks(lines));
  assert.equal((parseLines(played.stdout).at(-1) as { result: string }).result, 'It says alpha and beta.');
});
