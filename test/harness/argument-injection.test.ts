/**
 * Argument injection into the wrapped CLIs (issue 27): a model name, a resumed session id or a
 * system prompt comes from a client or a transcript, and one starting with `--` was read as a
 * flag (qwen and codex). Each real CLI here gets values that are the names of its own dangerous
 * flags: the model requests must carry them as the model, and a resumed id must be looked up as
 * an id (and fail), never resume another session or turn approvals off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  anthropicBlock,
  anthropicStream,
  OPENAI_DONE,
  openaiChunk,
  openaiUsage,
  startFakeServer,
} from '../model/fake-servers.ts';
import type { RecordedRequest, Reply } from '../model/fake-servers.ts';
import { claudeOfflineEnv, driveHarness, harnessDirs } from './helpers.ts';
import { startResponsesServer } from './fakes/responses-api.ts';
import { startFakeGemini } from './fakes/gemini-api.ts';

const isModelRequest = (r: RecordedRequest, route: string) => r.method === 'POST' && r.path.includes(route);

/** A harness resuming the session id `id`: the prompt fails, saying it looked `id` up as an id. */
async function resumeFails(config: Parameters<typeof driveHarness>[0], env: Record<string, string>, id: string) {
  const resumed = await driveHarness({ ...config, resumeNativeId: id }, env);
  try {
    const run = await resumed.prompt('what did I say?');
    assert.notEqual(run.outcome.subtype, 'success', `no session is named ${id}`);
    assert.ok(run.outcome.errors.join('\n').includes(id), run.outcome.errors.join('\n'));
  } finally {
    await resumed.harness.close();
  }
}

test('claude: a model, a system prompt and a resumed session id that start with -- stay values', async () => {
  const requests: RecordedRequest[] = [];
  const api = await startFakeServer((request) => {
    if (!isModelRequest(request, '/v1/messages') || request.path.includes('count_tokens'))
      return { kind: 'json', status: 200, body: { input_tokens: 1 } };
    requests.push(request);
    return {
      kind: 'sse',
      frames: anthropicStream(
        [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'ok' }])],
        'end_turn',
      ),
    };
  });
  const { home, cwd } = harnessDirs('inject-claude');
  const env = claudeOfflineEnv(api.url, home);
  const model = '--dangerously-skip-permissions';
  const driven = await driveHarness({ name: 'claude', cwd, model, systemPrompt: '--verbose' }, env);
  try {
    const run = await driven.prompt('hi');
    assert.equal(run.outcome.subtype, 'success', run.outcome.errors.join('\n'));
    assert.equal(requests.at(-1)!.body?.model, model);
    assert.match(JSON.stringify(requests.at(-1)!.body?.system), /--verbose/);
  } finally {
    await driven.harness.close();
  }
  try {
    await resumeFails({ name: 'claude', cwd }, env, '--continue');
  } finally {
    await api.close();
  }
});

test('qwen: a model and a resumed session id that start with -- stay values', async () => {
  const requests: RecordedRequest[] = [];
  const text: Reply = {
    kind: 'sse',
    frames: [
      openaiChunk({ role: 'assistant', content: 'ok' }),
      openaiChunk({}, 'stop'),
      openaiUsage(5, 1),
      OPENAI_DONE,
    ],
  };
  const api = await startFakeServer((request) => {
    if (!isModelRequest(request, '/chat/completions')) return { kind: 'json', status: 200, body: {} };
    requests.push(request);
    return text;
  });
  const { home, cwd } = harnessDirs('inject-qwen');
  const env = { HOME: home, OPENAI_BASE_URL: `${api.url}/v1`, OPENAI_API_KEY: 'sk-test' };
  const driven = await driveHarness({ name: 'qwen', cwd, model: '--yolo' }, env);
  try {
    const run = await driven.prompt('hi');
    assert.equal(run.outcome.subtype, 'success', run.outcome.errors.join('\n'));
    assert.deepEqual([...new Set(requests.map((r) => r.body?.model))], ['--yolo']);
  } finally {
    await driven.harness.close();
  }
  try {
    await resumeFails({ name: 'qwen', cwd, model: 'qwen-test' }, env, '--yolo');
  } finally {
    await api.close();
  }
});

test('codex: a model and a resumed session id that start with -- stay values: --last does not resume the latest session', async () => {
  const server = await startResponsesServer([{ kind: 'text', text: 'ok' }]);
  const { home, cwd } = harnessDirs('inject-codex');
  // The exec protocol: its argv carries the model and the resumed id (app-server sends them as JSON values).
  const env = { HOME: home, CODEX_HOME: home, CODEX_API_KEY: 'sk-fake', AGENTPIPE_CODEX_PROTOCOL: 'exec' };
  const model = '--dangerously-bypass-approvals-and-sandbox';
  const first = await driveHarness({ name: 'codex', cwd, baseUrl: server.baseUrl, model }, env);
  try {
    const run = await first.prompt('first: the word is heron');
    assert.equal(run.outcome.subtype, 'success', run.outcome.errors.join('\n'));
    assert.equal((server.modelRequests.at(-1)!.body as { model?: string }).model, model);
  } finally {
    await first.harness.close();
  }
  const sent = server.modelRequests.length;
  const resumed = await driveHarness(
    { name: 'codex', cwd, baseUrl: server.baseUrl, model: 'fake-model', resumeNativeId: '--last' },
    env,
  );
  try {
    // Codex looks `--last` up as a thread name, finds none and starts a thread of its own: read as its flag, it
    // resumed the latest session (checked against the old argv: the same thread, the earlier prompt sent again).
    await resumed.prompt('what was the word?');
    assert.notEqual(resumed.harness.nativeSessionId, first.harness.nativeSessionId);
    const later = server.modelRequests.slice(sent).map((r) => JSON.stringify(r.body));
    assert.ok(later.length > 0 && !later.some((body) => body.includes('heron')), 'the latest session was not resumed');
  } finally {
    await resumed.harness.close();
    await server.close();
  }
});

test('gemini: a model and a resumed session id that start with -- stay values', async () => {
  const fake = await startFakeGemini([{ kind: 'text', chunks: ['ok'] }]);
  const { home, cwd } = harnessDirs('inject-gemini');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  mkdirSync(path.join(home, 'tmp'), { recursive: true });
  const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { maxAttempts: 1 } };
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  const env = {
    HOME: home,
    TMPDIR: path.join(home, 'tmp'),
    GEMINI_API_KEY: 'fake-key',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  };
  const driven = await driveHarness({ name: 'gemini', cwd, baseUrl: fake.url, model: '--yolo' }, env);
  try {
    const run = await driven.prompt('hi');
    assert.equal(run.outcome.subtype, 'success', run.outcome.errors.join('\n'));
    const streamed = fake.requests.filter((r) => r.action === 'streamGenerateContent');
    assert.deepEqual([...new Set(streamed.map((r) => r.model))], ['--yolo']);
  } finally {
    await driven.harness.close();
  }
  try {
    await resumeFails({ name: 'gemini', cwd, baseUrl: fake.url, model: 'gemini-2.5-flash' }, env, '--yolo');
  } finally {
    await fake.close();
  }
});
