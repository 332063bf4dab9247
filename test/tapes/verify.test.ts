/**
 * A tape of the OpenAI-compatible provider (the local fake chat completions API): replayed offline with `--replay`,
 * checked with `agentpipe replay --verify` (same; a changed final file or a changed prompt on the tape: the first
 * difference, exit 1), turned into a script for the scripted model with `agentpipe script`; and the library's
 * `record` and `replay` options.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type AgentMessage, type QueryOptions } from '../../src/index.ts';
import { normalizeStream } from '../../src/session/tape-verify.ts';
import { parseLines, runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { writeScript } from '../helpers/workspace.ts';
import { OPENAI_DONE, openaiChunk, openaiUsage, startFakeServer, type Reply } from '../model/fake-servers.ts';
import { startFolder } from './scenario.ts';

const STREAM = ['--output-format', 'stream-json', '--verbose', '--setting-sources', ''];

/** The OpenAI-compatible session: Read notes.txt, then answer. */
async function recordOpenAi(): Promise<{ cwd: string; tape: string; lines: Array<Record<string, any>> }> {
  const cwd = startFolder();
  const call = {
    tool_calls: [
      {
        index: 0,
        id: 'call_read',
        type: 'function',
        function: { name: 'Read', arguments: JSON.stringify({ file_path: path.join(cwd, 'notes.txt') }) },
      },
    ],
  };
  const replies: Reply[] = [
    {
      kind: 'sse',
      frames: [
        openaiChunk({ role: 'assistant', ...call }),
        openaiChunk({}, 'tool_calls'),
        openaiUsage(40, 9),
        OPENAI_DONE,
      ],
    },
    {
      kind: 'sse',
      frames: [
        openaiChunk({ role: 'assistant', content: 'Two lines: ' }),
        openaiChunk({ content: 'alpha, beta.' }),
        openaiChunk({}, 'stop'),
        openaiUsage(60, 5),
        OPENAI_DONE,
      ],
    },
  ];
  let n = 0;
  const server = await startFakeServer(() => replies[Math.min(n++, replies.length - 1)]!);
  const tape = path.join(scratchDir('tape-openai-'), 'openai.tape.jsonl');
  try {
    const run = await runCli(
      [
        '-p',
        'What is in notes.txt?',
        '--base-url',
        `${server.url}/v1`,
        '--model',
        'gpt-test',
        ...STREAM,
        '--record',
        tape,
      ],
      {
        cwd,
        env: { OPENAI_API_KEY: 'sk-openai-tape-test-0123' },
      },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(n, 2);
    return { cwd, tape, lines: parseLines(run.stdout) };
  } finally {
    await server.close();
  }
}

let recording: ReturnType<typeof recordOpenAi> | undefined;
const recorded = () => (recording ??= recordOpenAi());

test('the OpenAI-compatible provider: recorded, then replayed offline with no key', async () => {
  const { cwd, tape, lines } = await recorded();
  assert.equal(lines.at(-1)!.result, 'Two lines: alpha, beta.');
  assert.ok(!readFileSync(tape, 'utf8').includes('sk-openai-tape-test-0123'));
  const folder = startFolder();
  const replay = await runCli(
    [
      '-p',
      'What is in notes.txt?',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--model',
      'gpt-test',
      ...STREAM,
      '--replay',
      tape,
    ],
    {
      cwd: folder,
      env: { OPENAI_API_KEY: '' },
    },
  );
  assert.equal(replay.code, 0, replay.stderr);
  assert.deepEqual(
    normalizeStream(parseLines(replay.stdout) as AgentMessage[], folder),
    normalizeStream(lines as AgentMessage[], cwd),
  );
});

test('agentpipe replay --verify: same; a changed final file or a changed prompt on the tape: the difference, exit 1', async () => {
  const { tape } = await recorded();
  const same = await runCli(['replay', tape, '--verify'], { env: { OPENAI_API_KEY: '' } });
  assert.equal(same.code, 0, same.stderr);
  assert.equal(same.stdout, 'same\n');

  const lines = readFileSync(tape, 'utf8').trim().split('\n');
  const edit = (change: (line: Record<string, any>) => void) => {
    const file = path.join(scratchDir('tape-edited-'), 'edited.jsonl');
    writeFileSync(
      file,
      `${lines
        .map((l) => {
          const v = JSON.parse(l) as Record<string, any>;
          change(v);
          return JSON.stringify(v);
        })
        .join('\n')}\n`,
    );
    return file;
  };
  const files = await runCli([
    'replay',
    edit((l) => {
      if (l.type === 'files' && l.at === 'end') l.files[0].text = 'alpha\nBETA\n';
    }),
    '--verify',
  ]);
  assert.equal(files.code, 1);
  assert.match(files.stdout, /^different: files: notes\.txt: first difference at text:\n/);
  assert.match(files.stdout, /\n {2}tape: +"alpha\\nBETA\\n"\n {2}this run: "alpha\\nbeta\\n"\n$/);

  const prompt = await runCli([
    'replay',
    edit((l) => {
      if (l.type === 'prompt') l.content = 'What is in notes.txt now?';
    }),
    '--verify',
  ]);
  assert.equal(prompt.code, 1);
  assert.match(prompt.stdout, /^different: message \d+ \(/);
  assert.match(prompt.stderr, /first difference at messages\[0\]\.content/);
});

test('agentpipe script: the tape as a script; the scripted model plays the same turns', async () => {
  const { tape, lines, cwd } = await recorded();
  const script = await runCli(['script', tape]);
  assert.equal(script.code, 0, script.stderr);
  const parsed = JSON.parse(script.stdout) as { turns: Array<Record<string, any>> };
  assert.equal(parsed.turns.length, 2);
  assert.deepEqual(parsed.turns[0]!.tool_calls, [
    { name: 'Read', input: { file_path: path.join(cwd, 'notes.txt') }, id: 'call_read' },
  ]);
  assert.equal(parsed.turns[1]!.text, 'Two lines: alpha, beta.');
  assert.deepEqual(parsed.turns[1]!.usage, { input_tokens: 60, output_tokens: 5 });
  const file = path.join(scratchDir('tape-script-'), 'script.json');
  writeFileSync(file, script.stdout);
  const played = await runCli(['-p', 'What is in notes.txt?', '--model', 'scripted', '--script', file, ...STREAM], {
    cwd,
  });
  assert.equal(played.code, 0, played.stderr);
  const blocks = (messages: Array<Record<string, any>>) =>
    messages.filter((m) => m.type === 'assistant').map((m) => ({ ...m.message.content[0], citations: undefined }));
  assert.deepEqual(blocks(parseLines(played.stdout)), blocks(lines));
});

test('the library: query() records with `record` and replays with `replay`', async () => {
  const collect = async (options: QueryOptions) => {
    const out: AgentMessage[] = [];
    for await (const message of query({ prompt: 'What is in notes.txt?', options })) out.push(message);
    return out;
  };
  const cwd = startFolder();
  const tape = path.join(scratchDir('tape-library-'), 'library.jsonl');
  const script = writeScript(scratchDir('tape-library-script-'), [
    { tool_calls: [{ name: 'Read', input: { file_path: path.join(cwd, 'notes.txt') } }] },
    { text: 'It has alpha and beta.' },
  ]);
  const first = await collect({ model: 'scripted', script, cwd, persistSession: false, record: tape });
  assert.equal((first.at(-1) as { result?: string }).result, 'It has alpha and beta.');
  const folder = startFolder();
  const again = await collect({ cwd: folder, persistSession: false, replay: tape, replayTools: 'tape' });
  assert.deepEqual(normalizeStream(again, folder), normalizeStream(first, cwd));
  assert.deepEqual(
    again.map((m) => m.uuid),
    first.map((m) => m.uuid),
  );
});

test('a resumed session recorded on the same tape: the tape goes on, and replays both runs as one session', async () => {
  const cwd = startFolder();
  const dir = scratchDir('tape-resume-');
  const tape = path.join(dir, 'resumed.jsonl');
  const run = (args: string[], turns: unknown[], name: string) =>
    runCli([...args, '--model', 'scripted', '--script', writeScript(dir, turns, name), ...STREAM, '--record', tape], {
      cwd,
    });
  const first = await run(['-p', 'Remember 42.'], [{ text: 'Noted.' }], 'one.json');
  assert.equal(first.code, 0, first.stderr);
  const id = parseLines(first.stdout)[0]!.session_id as string;
  const second = await run(['-p', 'What number?', '--resume', id], [{ text: 'It was 42.' }], 'two.json');
  assert.equal(second.code, 0, second.stderr);
  const kinds = readFileSync(tape, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { type: string; n?: number }).type);
  assert.equal(kinds.filter((k) => k === 'tape').length, 1, 'one header');
  assert.equal(kinds.filter((k) => k === 'prompt').length, 2);
  assert.equal(kinds.filter((k) => k === 'files').length, 3, 'the start, and the end of each run');
  const folder = startFolder();
  const replay = await runCli(['--replay', tape, ...STREAM], { cwd: folder });
  assert.equal(replay.code, 0, replay.stderr);
  const recorded = [...parseLines(first.stdout), ...parseLines(second.stdout)] as AgentMessage[];
  assert.deepEqual(
    normalizeStream(parseLines(replay.stdout) as AgentMessage[], folder),
    normalizeStream(recorded, cwd),
  );
});
