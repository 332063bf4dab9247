/**
 * Tapes of wrapped CLIs: a `--harness codex` session (the real Codex against the fake Responses API) and a
 * `--harness claude` session (the real Claude Code against the fake Messages API) are recorded through agentpipe's
 * recording proxy, then replayed with the fake API stopped, no key set, in a fresh folder and a fresh home: the same
 * stream as a client compares it, and the same files (the wrapped CLI runs its shell command again).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { claudeOfflineEnv, harnessDirs, testPath } from '../harness/helpers.ts';
import { startResponsesServer } from '../harness/fakes/responses-api.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';
import { normalizeStream } from '../../src/session/tape-verify.ts';
import type { AgentMessage } from '../../src/messages/types.ts';

const STREAM = ['--output-format', 'stream-json', '--verbose', '--permission-mode', 'bypassPermissions'];
const CODEX_KEY = 'sk-codex-tape-test-0123456789';
/** A header that carries a key, as JSON would hold it (Claude Code's system prompt says "authorization" in prose). */
const AUTH_HEADER = /"(x-api-key|authorization|x-goog-api-key)"\s*:|bearer\s+sk-/i;

/** The tape's lines by type. */
function tapeLines(file: string): Array<Record<string, any>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
}

test('--harness codex: recorded through the proxy, replayed with the API stopped and no key', async () => {
  const server = await startResponsesServer([
    { kind: 'call', name: 'exec_command', arguments: { cmd: 'echo made > made.txt' } },
    { kind: 'text', text: 'Made it.' },
  ]);
  const tape = path.join(scratchDir('tape-codex-'), 'codex.tape.jsonl');
  const recording = harnessDirs('tape-codex-rec');
  const args = ['-p', 'make a file', '--harness', 'codex', '--model', 'fake-model', ...STREAM];
  let recorded;
  try {
    recorded = await runCli([...args, '--base-url', server.baseUrl, '--record', tape], {
      cwd: recording.cwd,
      env: { PATH: testPath(), HOME: recording.home, CODEX_HOME: recording.home, CODEX_API_KEY: CODEX_KEY },
      timeoutMs: 60_000,
    });
  } finally {
    await server.close();
  }
  assert.equal(recorded.code, 0, recorded.stderr);
  assert.equal(server.modelRequests.length, 2);
  assert.equal(server.requests[0]!.headers.authorization, `Bearer ${CODEX_KEY}`, 'the key went through the proxy');
  const lines = parseLines(recorded.stdout);
  assert.equal(lines.at(-1)!.result, 'Made it.');
  assert.ok(existsSync(path.join(recording.cwd, 'made.txt')));
  const text = readFileSync(tape, 'utf8');
  assert.ok(!text.includes(CODEX_KEY) && !AUTH_HEADER.test(text), 'no key or auth header on the tape');
  const http = tapeLines(tape).filter((l) => l.type === 'http');
  assert.deepEqual(
    http.map((l) => `${l.api} ${l.method} ${l.path} ${l.status}`),
    ['openai-responses POST /v1/responses 200', 'openai-responses POST /v1/responses 200'],
  );
  assert.match(http[1]!.chunks.map((c: [number, string]) => c[1]).join(''), /event: response\.output_text\.delta/);

  const replaying = harnessDirs('tape-codex-replay');
  const replay = await runCli([...args, '--replay', tape], {
    cwd: replaying.cwd,
    env: { PATH: testPath(), HOME: replaying.home, CODEX_HOME: replaying.home, CODEX_API_KEY: '', OPENAI_API_KEY: '' },
    timeoutMs: 60_000,
  });
  assert.equal(replay.code, 0, replay.stderr);
  assert.deepEqual(
    normalizeStream(parseLines(replay.stdout) as AgentMessage[], replaying.cwd),
    normalizeStream(lines as AgentMessage[], recording.cwd),
  );
  assert.equal(readFileSync(path.join(replaying.cwd, 'made.txt'), 'utf8'), 'made\n', 'codex ran the command again');
});

test('--harness claude: recorded through the proxy, replayed with the API stopped and no key', async () => {
  const recording = harnessDirs('tape-claude-rec');
  // Claude Code refuses bypassPermissions as root: a Write in acceptEdits, with the recording's absolute path (a
  // replay elsewhere writes in its own folder).
  const write = { file_path: path.join(recording.cwd, 'made.txt'), content: 'made\n' };
  const replies = [
    anthropicStream(
      [
        anthropicBlock(0, { type: 'tool_use', id: 'toolu_made', name: 'Write', input: {} }, [
          { type: 'input_json_delta', partial_json: JSON.stringify(write) },
        ]),
      ],
      'tool_use',
    ),
    anthropicStream(
      [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Made it.' }])],
      'end_turn',
    ),
  ];
  let n = 0;
  const server = await startFakeServer((request) =>
    request.method === 'POST' && request.path.startsWith('/v1/messages') && !request.path.includes('count_tokens')
      ? { kind: 'sse', frames: replies[Math.min(n++, replies.length - 1)]! }
      : { kind: 'json', status: 200, body: { input_tokens: 1 } },
  );
  const tape = path.join(scratchDir('tape-claude-'), 'claude.tape.jsonl');
  const args = ['-p', 'make a file', '--harness', 'claude', ...STREAM, '--permission-mode', 'acceptEdits'];
  let recorded;
  try {
    recorded = await runCli([...args, '--record', tape], {
      cwd: recording.cwd,
      env: { PATH: testPath(), ...claudeOfflineEnv(server.url, recording.home) },
      timeoutMs: 60_000,
    });
  } finally {
    await server.close();
  }
  assert.equal(recorded.code, 0, recorded.stderr);
  assert.equal(n, 2);
  const lines = parseLines(recorded.stdout);
  assert.equal(lines.at(-1)!.result, 'Made it.');
  const text = readFileSync(tape, 'utf8');
  assert.ok(!text.includes('sk-ant-test') && !AUTH_HEADER.test(text), 'no key or auth header on the tape');
  assert.ok(tapeLines(tape).some((l) => l.type === 'http' && l.api === 'anthropic' && l.status === 200));

  const replaying = harnessDirs('tape-claude-replay');
  const replay = await runCli([...args, '--replay', tape], {
    cwd: replaying.cwd,
    env: { PATH: testPath(), ...claudeOfflineEnv('http://127.0.0.1:9', replaying.home, '') },
    timeoutMs: 60_000,
  });
  assert.equal(replay.code, 0, replay.stderr);
  assert.deepEqual(
    normalizeStream(parseLines(replay.stdout) as AgentMessage[], replaying.cwd),
    normalizeStream(lines as AgentMessage[], recording.cwd),
  );
  assert.equal(readFileSync(path.join(replaying.cwd, 'made.txt'), 'utf8'), 'made\n');
});

test('--harness gemini: recorded through the proxy (the Gemini API), replayed with the API stopped and no key', async () => {
  const { startFakeGemini } = await import('../harness/fakes/gemini-api.ts');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const fake = await startFakeGemini([{ kind: 'text', chunks: ['Hello ', 'from the ', 'fake Gemini.'] }]);
  const tape = path.join(scratchDir('tape-gemini-'), 'gemini.tape.jsonl');
  const setup = (dirs: { home: string; cwd: string }) => {
    mkdirSync(path.join(dirs.home, '.gemini'), { recursive: true });
    mkdirSync(path.join(dirs.home, 'tmp'), { recursive: true });
    const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { maxAttempts: 1 } };
    writeFileSync(path.join(dirs.home, '.gemini', 'settings.json'), JSON.stringify(settings));
    return {
      PATH: testPath(),
      HOME: dirs.home,
      TMPDIR: path.join(dirs.home, 'tmp'),
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    };
  };
  const recording = harnessDirs('tape-gemini-rec');
  const args = ['-p', 'say hi', '--harness', 'gemini', '--model', 'gemini-2.5-flash', ...STREAM];
  let recorded;
  try {
    recorded = await runCli([...args, '--base-url', fake.url, '--record', tape], {
      cwd: recording.cwd,
      env: { ...setup(recording), GEMINI_API_KEY: 'gemini-tape-test-key-0123' },
      timeoutMs: 60_000,
    });
  } finally {
    await fake.close();
  }
  assert.equal(recorded.code, 0, recorded.stderr);
  const lines = parseLines(recorded.stdout);
  assert.equal(lines.at(-1)!.result, 'Hello from the fake Gemini.');
  const text = readFileSync(tape, 'utf8');
  assert.ok(
    !text.includes('gemini-tape-test-key-0123') && !AUTH_HEADER.test(text),
    'no key or auth header on the tape',
  );
  assert.ok(
    tapeLines(tape).some((l) => l.type === 'http' && l.api === 'gemini' && /streamGenerateContent/.test(l.path)),
  );

  const replaying = harnessDirs('tape-gemini-replay');
  const replay = await runCli([...args, '--replay', tape], {
    cwd: replaying.cwd,
    env: { ...setup(replaying), GEMINI_API_KEY: '', GOOGLE_API_KEY: '' },
    timeoutMs: 60_000,
  });
  assert.equal(replay.code, 0, replay.stderr);
  assert.deepEqual(
    normalizeStream(parseLines(replay.stdout) as AgentMessage[], replaying.cwd),
    normalizeStream(lines as AgentMessage[], recording.cwd),
  );
});
