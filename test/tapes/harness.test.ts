/**
 * Tapes of wrapped CLIs: a `--harness codex` session (the real Codex against the fake Responses API), a
 * `--harness claude` session (the real Claude Code against the fake Messages API) and a `--harness gemini` session
 * (the real Gemini CLI against the fake Gemini API) are recorded through agentpipe's recording proxy, then replayed
 * with the fake API stopped, no key set, in a fresh folder and a fresh home: the same stream as a client compares it,
 * and the same files (the wrapped CLI runs its tool call again).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { claudeOfflineEnv, harnessDirs, testPath } from '../harness/helpers.ts';
import { startResponsesServer } from '../harness/fakes/responses-api.ts';
import { startFakeGemini } from '../harness/fakes/gemini-api.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';
import { normalizeStream } from '../../src/session/tape-verify.ts';
import type { AgentMessage } from '../../src/messages/types.ts';

const STREAM = ['--output-format', 'stream-json', '--verbose', '--permission-mode', 'bypassPermissions'];
const CODEX_KEY = 'sk-codex-tape-test-0123456789';
/** A header that carries a key, as JSON would hold it (Claude Code's system prompt says "authorization" in prose). */
const AUTH_HEADER = /"(x-api-key|authorization|x-goog-api-key)"\s*:|bearer\s+sk-/i;

type Dirs = { home: string; cwd: string };

/** What one test records and replays. */
interface Session {
  name: string;
  args: string[];
  /** Flags of the recording only (the fake API's base URL). */
  recordArgs?: string[];
  /** The environment of a run in `dirs`, with the key (recording) or without (replay). */
  env: (dirs: Dirs, recording: boolean) => Record<string, string>;
  /** The key of the recording: never on the tape. */
  key: string;
  /** Stops the fake API (after the recording). */
  stop: () => Promise<void>;
}

/** Records the session, stops the fake API, replays it elsewhere: both streams and folders, and the tape. */
async function recordAndReplay(s: Session) {
  const tape = path.join(scratchDir(`tape-${s.name}-`), `${s.name}.tape.jsonl`);
  const recording = harnessDirs(`tape-${s.name}-rec`);
  let recorded;
  try {
    recorded = await runCli([...s.args, ...(s.recordArgs ?? []), '--record', tape], {
      cwd: recording.cwd,
      env: { PATH: testPath(), ...s.env(recording, true) },
      timeoutMs: 60_000,
    });
  } finally {
    await s.stop();
  }
  assert.equal(recorded.code, 0, recorded.stderr);
  const text = readFileSync(tape, 'utf8');
  assert.ok(!text.includes(s.key) && !AUTH_HEADER.test(text), 'no key or auth header on the tape');
  const replaying = harnessDirs(`tape-${s.name}-replay`);
  const replay = await runCli([...s.args, '--replay', tape], {
    cwd: replaying.cwd,
    env: { PATH: testPath(), ...s.env(replaying, false) },
    timeoutMs: 60_000,
  });
  assert.equal(replay.code, 0, replay.stderr);
  const lines = parseLines(recorded.stdout);
  assert.deepEqual(
    normalizeStream(parseLines(replay.stdout) as AgentMessage[], replaying.cwd),
    normalizeStream(lines as AgentMessage[], recording.cwd),
  );
  const http = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>)
    .filter((l) => l.type === 'http');
  return { lines, http, recording, replaying };
}

test('--harness codex: recorded through the proxy, replayed with the API stopped and no key', async () => {
  const server = await startResponsesServer([
    { kind: 'call', name: 'exec_command', arguments: { cmd: 'echo made > made.txt' } },
    { kind: 'text', text: 'Made it.' },
  ]);
  const { lines, http, recording, replaying } = await recordAndReplay({
    name: 'codex',
    args: ['-p', 'make a file', '--harness', 'codex', '--model', 'fake-model', ...STREAM],
    recordArgs: ['--base-url', server.baseUrl],
    env: ({ home }, recording) => ({
      HOME: home,
      CODEX_HOME: home,
      ...(recording ? { CODEX_API_KEY: CODEX_KEY } : { CODEX_API_KEY: '', OPENAI_API_KEY: '' }),
    }),
    key: CODEX_KEY,
    stop: () => server.close(),
  });
  assert.equal(server.modelRequests.length, 2);
  assert.equal(server.requests[0]!.headers.authorization, `Bearer ${CODEX_KEY}`, 'the key went through the proxy');
  assert.equal(lines.at(-1)!.result, 'Made it.');
  assert.ok(existsSync(path.join(recording.cwd, 'made.txt')));
  assert.deepEqual(
    http.map((l) => `${l.api} ${l.method} ${l.path} ${l.status}`),
    ['openai-responses POST /v1/responses 200', 'openai-responses POST /v1/responses 200'],
  );
  assert.match(http[1]!.chunks.map((c: [number, string]) => c[1]).join(''), /event: response\.output_text\.delta/);
  assert.equal(readFileSync(path.join(replaying.cwd, 'made.txt'), 'utf8'), 'made\n', 'codex ran the command again');
});

test('--harness claude: recorded through the proxy, replayed with the API stopped and no key', async () => {
  let written = '';
  let n = 0;
  const server = await startFakeServer((request) => {
    if (request.method !== 'POST' || !request.path.startsWith('/v1/messages') || request.path.includes('count_tokens'))
      return { kind: 'json', status: 200, body: { input_tokens: 1 } };
    // Claude Code refuses bypassPermissions as root: a Write in acceptEdits, with the recording's absolute path (a
    // replay elsewhere writes in its own folder).
    const write = { file_path: written, content: 'made\n' };
    const frames =
      n++ === 0
        ? anthropicStream(
            [
              anthropicBlock(0, { type: 'tool_use', id: 'toolu_made', name: 'Write', input: {} }, [
                { type: 'input_json_delta', partial_json: JSON.stringify(write) },
              ]),
            ],
            'tool_use',
          )
        : anthropicStream(
            [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Made it.' }])],
            'end_turn',
          );
    return { kind: 'sse', frames };
  });
  const { lines, http, replaying } = await recordAndReplay({
    name: 'claude',
    args: ['-p', 'make a file', '--harness', 'claude', ...STREAM, '--permission-mode', 'acceptEdits'],
    env: (dirs, recording) => {
      if (recording) written = path.join(dirs.cwd, 'made.txt');
      return recording
        ? claudeOfflineEnv(server.url, dirs.home)
        : claudeOfflineEnv('http://127.0.0.1:9', dirs.home, '');
    },
    key: 'sk-ant-test',
    stop: () => server.close(),
  });
  assert.equal(n, 2);
  assert.equal(lines.at(-1)!.result, 'Made it.');
  assert.ok(http.some((l) => l.api === 'anthropic' && l.status === 200));
  assert.equal(readFileSync(path.join(replaying.cwd, 'made.txt'), 'utf8'), 'made\n');
});

test('--harness gemini: recorded through the proxy (the Gemini API), replayed with the API stopped and no key', async () => {
  // The Gemini CLI's skills stay on, as users have them: it lists its built-in skills in the order glob() finds them,
  // another each run, and the replay compares that list sorted (test/tapes/unordered.unit.test.ts).
  const fake = await startFakeGemini([{ kind: 'text', chunks: ['Hello ', 'from the ', 'fake Gemini.'] }]);
  const key = 'gemini-tape-test-key-0123';
  const { lines, http } = await recordAndReplay({
    name: 'gemini',
    args: ['-p', 'say hi', '--harness', 'gemini', '--model', 'gemini-2.5-flash', ...STREAM],
    recordArgs: ['--base-url', fake.url],
    env: ({ home }, recording) => {
      mkdirSync(path.join(home, '.gemini'), { recursive: true });
      mkdirSync(path.join(home, 'tmp'), { recursive: true });
      const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { maxAttempts: 1 } };
      writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
      return {
        HOME: home,
        TMPDIR: path.join(home, 'tmp'),
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        ...(recording ? { GEMINI_API_KEY: key } : { GEMINI_API_KEY: '', GOOGLE_API_KEY: '' }),
      };
    },
    key,
    stop: () => fake.close(),
  });
  assert.equal(lines.at(-1)!.result, 'Hello from the fake Gemini.');
  assert.ok(http.some((l) => l.api === 'gemini' && /streamGenerateContent/.test(l.path)));
});
