/**
 * agentpipe and Claude Code side by side (issue 14): the real pinned Claude Code CLI and agentpipe
 * answer the same prompt from the same fake Messages API, each in its own copy of the folder, and
 * what a client reads of the two streams must be the same. Each row is a difference that was found
 * this way and fixed; the projection says what is compared (ids, times, costs and the folder are
 * normalized away by side-by-side.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { answer, calls, normalize, sideBySide, type Line, type Scenario, type SideRun } from './side-by-side.ts';
import { closedPort } from '../helpers/ports.ts';

const STREAM = ['-p', '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-6'];
const NOTEBOOK = readFileSync(path.join(ROOT, 'test/fixtures/notebooks/outputs.ipynb'), 'utf8');

/** Each tool result of a run by tool_use_id: what the model sees, whether it failed, and `tool_use_result`. */
function toolResults(run: SideRun): Record<string, unknown> {
  const lines = normalize(run.lines, run.cwd);
  return Object.fromEntries(
    lines
      .filter((l: Line) => l.type === 'user' && l.message.content[0]?.type === 'tool_result')
      .map((l: Line) => {
        const block = l.message.content[0];
        return [
          block.tool_use_id,
          { content: block.content, failed: block.is_error === true, data: l.tool_use_result },
        ];
      }),
  );
}

/** Runs the scenario on both and compares `project` of each. */
async function same(scenario: Scenario, project: (run: SideRun) => unknown): Promise<void> {
  const { claude, agentpipe } = await sideBySide(scenario);
  assert.equal(claude.code, 0, `Claude Code failed: ${claude.stderr}`);
  assert.equal(agentpipe.code, 0, `agentpipe failed: ${agentpipe.stderr}`);
  assert.deepEqual(project(agentpipe), project(claude));
}

test('Read of a text file: lines numbered `1\\ttext`, a final newline counted as a line, the same file result', () =>
  same(
    {
      files: { 'a.txt': 'alpha\nbeta\n', 'crlf.txt': 'one\r\ntwo' },
      replies: (cwd) => [
        calls(
          ['toolu_a', 'Read', { file_path: `${cwd}/a.txt` }],
          ['toolu_b', 'Read', { file_path: `${cwd}/crlf.txt` }],
        ),
        calls(['toolu_c', 'Read', { file_path: `${cwd}/a.txt`, offset: 2, limit: 1 }]),
        answer('read'),
      ],
      args: [...STREAM, 'read'],
    },
    toolResults,
  ));

test('Read of a notebook: its cells rendered, not its JSON; tool_use_result is the notebook shape', () =>
  same(
    {
      files: { 'n.ipynb': NOTEBOOK },
      replies: (cwd) => [calls(['toolu_nb', 'Read', { file_path: `${cwd}/n.ipynb` }]), answer('seen')],
      args: [...STREAM, 'read'],
    },
    toolResults,
  ));

test('Read of a missing file: the error in Claude Code\'s words (no tags), tool_use_result "Error: …"', () =>
  same(
    {
      replies: (cwd) => [calls(['toolu_m', 'Read', { file_path: `${cwd}/missing.txt` }]), answer('none')],
      args: [...STREAM, 'read'],
    },
    toolResults,
  ));

// Claude Code 2.1.332 runs an Edit of an unread file, which agentpipe refuses (docs/compat.md: not matched yet; the
// differential suite's tools/edit-unread shows it): this row covers the edits after a Read.
test("Edit/Write after a Read answer in Claude Code's words", () =>
  same(
    {
      files: { 'a.txt': 'one\ntwo\n', 'b.txt': 'x\n' },
      replies: (cwd) => [
        calls(['toolu_r', 'Read', { file_path: `${cwd}/a.txt` }]),
        calls(['toolu_e', 'Edit', { file_path: `${cwd}/a.txt`, old_string: 'two', new_string: 'TWO' }]),
        calls(['toolu_w', 'Write', { file_path: `${cwd}/new.txt`, content: 'n\n' }]),
        calls([
          'toolu_all',
          'Edit',
          { file_path: `${cwd}/a.txt`, old_string: 'o', new_string: '0', replace_all: true },
        ]),
        answer('ok'),
      ],
      args: [...STREAM, '--permission-mode', 'acceptEdits', 'go'],
    },
    toolResults,
  ));

test('--json-schema: the model answers through the StructuredOutput tool; an invalid call is an error it can fix, a valid one ends the prompt', () =>
  same(
    {
      replies: [
        calls(['toolu_bad', 'StructuredOutput', { answer: 'forty-two' }]),
        calls(['toolu_good', 'StructuredOutput', { answer: 42 }]),
        answer('never asked'),
      ],
      args: [
        ...STREAM,
        '--json-schema',
        JSON.stringify({ type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] }),
        'answer',
      ],
    },
    (run) => {
      const result = run.lines.at(-1)!;
      return {
        results: toolResults(run),
        kinds: run.lines.map((l) => (l.type === 'system' ? `system/${l.subtype}` : l.type)),
        requests: run.requests.length,
        result: [result.subtype, result.result, result.structured_output, result.num_turns, result.stop_reason],
      };
    },
  ));

test('Bash: stderr in stdout, no exit code field; a failure is "Exit code N" then the output, its tool_use_result "Error: …"', () =>
  same(
    {
      replies: [
        calls(
          ['toolu_ok', 'Bash', { command: 'echo out; echo err >&2' }],
          ['toolu_quiet', 'Bash', { command: 'true' }],
          ['toolu_fail', 'Bash', { command: 'echo partial; exit 3' }],
          ['toolu_silent_fail', 'Bash', { command: 'exit 4' }],
        ),
        answer('ran'),
      ],
      args: [...STREAM, '--permission-mode', 'bypassPermissions', 'run'],
    },
    toolResults,
  ));

test("a UserPromptSubmit hook that blocks: system/informational with Claude Code's notice, then a success result carrying it", () =>
  same(
    {
      files: {
        'hooks.json': JSON.stringify({
          hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo no secrets here >&2; exit 2' }] }] },
        }),
      },
      replies: [answer('never')],
      args: [...STREAM, '--settings', 'hooks.json', 'tell me the secret'],
    },
    (run) => {
      const lines = normalize(run.lines, run.cwd);
      const notice = lines.find((l) => l.type === 'system' && l.subtype === 'informational');
      const result = lines.at(-1)!;
      return {
        notice: notice && [notice.content, notice.level, notice.prevent_continuation],
        result: [result.subtype, result.is_error, result.result, result.num_turns, result.stop_reason],
        requests: run.requests.length,
      };
    },
  ));

test('CLAUDE_CODE_MAX_RETRIES=0 (as the harness sets it): a failing request is not retried, no api_retry', async () => {
  const { claude, agentpipe } = await sideBySide({
    replies: [{ kind: 'json', status: 500, body: { type: 'error', error: { type: 'api_error', message: 'boom' } } }],
    args: [...STREAM, 'hi'],
  });
  const shape = (run: SideRun) => ({
    requests: run.requests.length,
    retries: run.lines.filter((l) => l.type === 'system' && l.subtype === 'api_retry').length,
    code: run.code,
    last: run.lines.at(-1)?.type,
  });
  assert.deepEqual(shape(agentpipe), shape(claude));
});

test('--json-schema: system/init lists StructuredOutput where Claude Code lists it', () =>
  same(
    {
      replies: [calls(['toolu_s', 'StructuredOutput', { answer: 1 }])],
      args: [...STREAM, '--json-schema', JSON.stringify({ type: 'object' }), 'answer'],
    },
    (run) => {
      const tools: string[] = run.lines[0]!.tools;
      const i = tools.indexOf('StructuredOutput');
      // The neighbours agentpipe also has (Claude Code has more tools): the one before it and Task first.
      return {
        first: tools[0],
        listed: i > 0,
        before: tools.slice(0, i).filter((t) => ['Read', 'NotebookEdit'].includes(t)),
      };
    },
  ));

/** A JSON error answer of the fake API. */
const apiError = (status: number, type: string, message: string): Scenario['replies'] => [
  { kind: 'json', status, body: { type: 'error', error: { type, message } } },
];

/** What a client reads of a prompt that ended on a failed request: the synthetic message, the result, the exit code. */
function failure(run: SideRun) {
  // The gateway the texts name is each run's own fake server.
  const lines = normalize(run.lines, run.cwd).map((l) =>
    JSON.parse(JSON.stringify(l).replace(/127\.0\.0\.1:\d+/g, '<HOST>')),
  ) as Line[];
  const result = lines.at(-1)!;
  return {
    code: run.code,
    assistant: lines
      .filter((l) => l.type === 'assistant')
      .map((l) => [l.message.model, l.message.content[0].text, l.message.stop_reason, l.error]),
    result: [
      result.type,
      result.subtype,
      result.is_error,
      result.api_error_status,
      result.result,
      result.errors,
      result.stop_reason,
      result.terminal_reason,
      result.num_turns,
      result.fast_mode_state,
    ],
  };
}

/** Runs the scenario on both (a failed prompt exits 1 in both) and compares `failure` of each. */
async function sameFailure(scenario: Scenario): Promise<void> {
  const { claude, agentpipe } = await sideBySide(scenario);
  assert.deepEqual(failure(agentpipe), failure(claude));
}

for (const [name, replies] of [
  ['400 invalid_request', apiError(400, 'invalid_request_error', 'messages.0: bad')],
  ['401 invalid x-api-key', apiError(401, 'authentication_error', 'invalid x-api-key')],
  ['403', apiError(403, 'permission_error', 'not for you')],
  ['404 unknown model', apiError(404, 'not_found_error', 'model: claude-sonnet-4-6')],
  ['413 request too large', apiError(413, 'request_too_large', 'Request exceeds the maximum size')],
  ['429 (no retries)', apiError(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit')],
  ['500', apiError(500, 'api_error', 'Internal server error')],
  ['529 overloaded', apiError(529, 'overloaded_error', 'Overloaded')],
] as const)
  test(`API error ${name}: Claude Code's synthetic message and its success result with is_error and api_error_status`, () =>
    sameFailure({ replies, args: [...STREAM, 'hi'] }));

test('a refused connection: "Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)", api_error_status null', async () => {
  const port = await closedPort();
  const { claude, agentpipe } = await sideBySide({
    replies: [],
    args: [...STREAM, 'hi'],
    env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` },
  });
  // agentpipe adds where the request went (Claude Code names no host); the rest is Claude Code's.
  const where = ` · the API at 127.0.0.1:${port} (ANTHROPIC_BASE_URL)`;
  assert.ok(agentpipe.stdout.includes(where), agentpipe.stdout);
  const withoutWhere = {
    ...agentpipe,
    lines: agentpipe.lines.map((l) => JSON.parse(JSON.stringify(l).replaceAll(where, ''))),
  };
  assert.deepEqual(failure(withoutWhere), failure(claude));
});

test("a prompt too long: Claude Code's \"cannot be compacted\" text (the conversation's own size is each one's estimate)", async () => {
  const { claude, agentpipe } = await sideBySide({
    replies: apiError(400, 'invalid_request_error', 'prompt is too long: 300000 tokens > 200000 maximum'),
    args: [...STREAM, 'hi'],
  });
  const estimateless = (run: SideRun) =>
    JSON.parse(
      JSON.stringify(failure(run)).replace(/conversation is only ~\d+ tokens/g, 'conversation is only ~N tokens'),
    );
  assert.deepEqual(estimateless(agentpipe), estimateless(claude));
});

test('text and json output of a failed request: the error text on stdout, nothing on stderr, exit 1', async () => {
  for (const format of ['text', 'json']) {
    const { claude, agentpipe } = await sideBySide({
      replies: apiError(500, 'api_error', 'Internal server error'),
      args: ['-p', '--output-format', format, '--model', 'claude-sonnet-4-6', 'hi'],
    });
    const shown = (run: SideRun) => ({
      code: run.code,
      stderr: run.stderr,
      stdout:
        format === 'text'
          ? run.stdout.replace(/127\.0\.0\.1:\d+/g, '<HOST>')
          : failure({ ...run, lines: run.lines }).result,
    });
    assert.deepEqual(shown(agentpipe), shown(claude));
  }
});

test("result and system/init carry Claude Code's fields: api_error_status null, fast_mode_state 'off', the ttft timings", () =>
  same({ replies: [answer('hello')], args: [...STREAM, 'hi'] }, (run) => {
    const init = run.lines[0]!;
    const result = run.lines.at(-1)!;
    return {
      init: [init.fast_mode_state, init.analytics_disabled, init.product_feedback_disabled],
      result: [result.is_error, result.api_error_status, result.fast_mode_state],
      // Measured times: present and whole milliseconds.
      timings: ['ttft_ms', 'ttft_stream_ms', 'time_to_request_ms'].map((k) => Number.isInteger(result[k])),
    };
  }));

test('modelUsage is keyed by the model asked for, not the snapshot the API answered with', () =>
  same({ replies: [answer('hello')], args: [...STREAM, 'hi'] }, (run) => {
    const result = run.lines.at(-1)!;
    // The fake answers as claude-sonnet-4-5-20250929; both asked for claude-sonnet-4-6.
    assert.equal(run.lines.find((l) => l.type === 'assistant')!.message.model, 'claude-sonnet-4-5-20250929');
    return Object.entries(result.modelUsage as Record<string, Line>).map(([model, u]) => [
      model,
      u.inputTokens,
      u.outputTokens,
      u.contextWindow,
    ]);
  }));
