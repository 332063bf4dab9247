/**
 * What only the Claude Code harness does, with the real `claude` CLI (test/harness/clis) against a local fake of the
 * Messages API: a denied call and a Write shown as a diff, the API error's details, a CLI that prints garbage or goes
 * silent, its permission question's details. What every harness does is in conformance/ (text, tool call,
 * permission, interrupt, resume, provider error, crash).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  anthropicBlock,
  anthropicStream,
  startFakeServer,
  type RecordedRequest,
  type Reply,
} from '../model/fake-servers.ts';
import { claudeOfflineEnv, driveHarness, harnessDirs, typesOf } from './helpers.ts';
import { toAcpUpdates } from '../../src/index.ts';
import { liveGroupCount } from '../../src/process/run.ts';
import type { AgentMessage } from '../../src/messages/types.ts';

const text = (...pieces: string[]) =>
  anthropicStream(
    [
      anthropicBlock(
        0,
        { type: 'text', text: '' },
        pieces.map((t) => ({ type: 'text_delta', text: t })),
      ),
    ],
    'end_turn',
  );
const toolCall = (name: string, input: unknown) =>
  anthropicStream(
    [
      anthropicBlock(0, { type: 'tool_use', id: `toolu_${name}`, name, input: {} }, [
        { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      ]),
    ],
    'tool_use',
  );

/** The text of the last user message of a request (a prompt or a tool result). */
function lastUser(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return JSON.stringify(messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
}

/**
 * A fake Messages API: `route` picks the reply from the last user message; anything that is not a model request gets
 * `{}`.
 */
async function fakeApi(route: (last: string, request: RecordedRequest) => Reply) {
  return startFakeServer((request) =>
    request.method === 'POST' && request.path.startsWith('/v1/messages') && !request.path.includes('count_tokens')
      ? route(lastUser(request), request)
      : { kind: 'json', status: 200, body: { input_tokens: 1 } },
  );
}

const offlineEnv = (url: string, home: string) => claudeOfflineEnv(url, home);

test('claude: a denied call does not run; a Write in acceptEdits shows as a diff the faces can show', async () => {
  const { home, cwd } = harnessDirs('claude-write');
  const api = await fakeApi((last) => {
    // Claude Code joins the next prompt to the user message of the refused call: route by what came last.
    if (last.includes('toolu_Write')) return { kind: 'sse', frames: text('ok') };
    if (last.includes('write it'))
      return {
        kind: 'sse',
        frames: toolCall('Write', { file_path: path.join(cwd, 'notes.md'), content: 'one\ntwo\n' }),
      };
    if (last.includes('toolu_Bash')) return { kind: 'sse', frames: text('refused') };
    return { kind: 'sse', frames: toolCall('Bash', { command: "python3 -c \"open('denied.txt', 'w')\"" }) };
  });
  const h = await driveHarness({ name: 'claude', cwd, permissionMode: 'acceptEdits' }, offlineEnv(api.url, home));
  try {
    const denied = await h.prompt('touch it', {
      askPermission: async () => ({ behavior: 'deny', message: 'not today' }),
    });
    assert.equal(existsSync(path.join(cwd, 'denied.txt')), false);
    assert.match(JSON.stringify(denied.messages.find((m) => m.type === 'user')), /not today/);
    const wrote = await h.prompt('write it');
    assert.equal(wrote.outcome.subtype, 'success', wrote.outcome.errors.join('\n'));
    assert.equal(readFileSync(path.join(cwd, 'notes.md'), 'utf8'), 'one\ntwo\n');
    const result = wrote.messages.find((m) => m.type === 'user');
    assert.ok(result?.type === 'user' && result.tool_use_result && typeof result.tool_use_result === 'object');
    const diff = toAcpUpdates(wrote.messages)
      .flatMap((u) => ('content' in u && Array.isArray(u.content) ? u.content : []))
      .find((c) => c.type === 'diff');
    assert.ok(diff, 'the ACP updates carry the file as a diff');
  } finally {
    await h.harness.close();
    await api.close();
  }
});

test('claude: a rejected key ends the prompt with one error outcome that says so', async () => {
  const api = await fakeApi(() => ({
    kind: 'json',
    status: 401,
    body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
  }));
  const { home, cwd } = harnessDirs('claude-401');
  const h = await driveHarness({ name: 'claude', cwd }, offlineEnv(api.url, home));
  try {
    const run = await h.prompt('say hi');
    // Claude Code reports it as a `success` result with is_error: an error outcome inside agentpipe, whose result
    // the session writes in Claude Code's form again (its text, api_error_status, terminal_reason).
    assert.equal(run.outcome.subtype, 'error_during_execution');
    assert.match(run.outcome.errors.join(' '), /Invalid API key/);
    assert.deepEqual(run.outcome.apiError, {
      text: 'Invalid API key · Fix external API key',
      status: 401,
      terminalReason: 'api_error',
    });
    assert.deepEqual(typesOf(run.messages), ['system/init', 'assistant']);
  } finally {
    await h.harness.close();
    await api.close();
  }
});

test('claude: a CLI that prints garbage and dies gives one failure outcome, each unknown reported once', async () => {
  const { cwd } = harnessDirs('claude-crash');
  const script = path.join(cwd, 'fake-claude.mjs');
  writeFileSync(
    script,
    [
      'process.stdin.once("data", () => {',
      '  console.log("not json at all");',
      '  console.log(JSON.stringify({ type: "mystery", x: 1 }));',
      '  console.log(JSON.stringify({ type: "mystery", x: 2 }));',
      '  console.error("fatal: the fake fell over");',
      '  process.exit(3);',
      '});',
    ].join('\n'),
  );
  const h = await driveHarness({ name: 'claude', cwd, command: [process.execPath, script] });
  try {
    const run = await h.prompt('hi');
    assert.equal(run.outcome.subtype, 'error_during_execution');
    assert.match(run.outcome.errors.join(' '), /code 3.*the fake fell over/s);
    assert.equal(h.warnings.filter((w) => w.includes('mystery')).length, 1);
    assert.equal(h.warnings.filter((w) => w.includes('not a JSON object')).length, 1);
    assert.deepEqual(typesOf(run.messages), ['system/init']);
  } finally {
    await h.harness.close();
  }
});

test('claude: a CLI that goes silent is stopped after the idle limit and the prompt fails saying so', async () => {
  const { cwd } = harnessDirs('claude-silent');
  const script = path.join(cwd, 'silent-claude.mjs');
  writeFileSync(script, 'process.stdin.resume(); setInterval(() => {}, 1000);\n');
  const h = await driveHarness({ name: 'claude', cwd, command: [process.execPath, script], idleMs: 300 });
  try {
    const run = await h.prompt('hi');
    assert.equal(run.outcome.subtype, 'error_during_execution');
    assert.match(run.outcome.errors.join(' '), /without output \(AGENTPIPE_HARNESS_IDLE_MS\)/);
  } finally {
    await h.harness.close();
  }
  assert.equal(liveGroupCount(), 0);
});

test("claude: its permission question's details (suggestions, display name, description, why) reach the session", async () => {
  const { home, cwd } = harnessDirs('claude-suggestions');
  const api = await fakeApi((last) =>
    last.includes('toolu_Bash')
      ? { kind: 'sse', frames: text('refused') }
      : { kind: 'sse', frames: toolCall('Bash', { command: 'npm test -- --grep foo' }) },
  );
  const h = await driveHarness({ name: 'claude', cwd }, offlineEnv(api.url, home));
  try {
    const shown: unknown[] = [];
    await h.prompt('test it', {
      askPermission: async (_tool, _input, details) => {
        shown.push(details);
        return { behavior: 'deny', message: 'not today' };
      },
    });
    assert.deepEqual(shown, [
      {
        suggestions: [
          {
            type: 'addRules',
            rules: [{ toolName: 'Bash', ruleContent: 'npm test *' }],
            behavior: 'allow',
            destination: 'localSettings',
          },
        ],
        displayName: 'Bash',
        description: 'npm test -- --grep foo',
        decisionReason: 'This command requires approval',
        decisionReasonType: 'other',
      },
    ]);
  } finally {
    await h.harness.close();
    await api.close();
  }
});
