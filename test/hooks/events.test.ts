/** The other events: where they fire, what they get, what their decisions do. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/workspace.ts';
import { ofType, runScripted, toolResults } from '../helpers/agent-run.ts';
import { parseLines } from '../helpers/cli.ts';
import { anthropic, CLAUDE, place, run, STREAM, text, toolCall } from '../session/helpers.ts';

/** A settings object whose hooks append their stdin to events.log. */
function logging(events: string[]): string {
  const hooks = Object.fromEntries(
    events.map((e) => [e, [{ hooks: [{ type: 'command', command: 'cat >> events.log; echo >> events.log' }] }]]),
  );
  return JSON.stringify({ hooks });
}
const logged = (dir: string) =>
  readFileSync(path.join(dir, 'events.log'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

test('SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SessionEnd in order', async () => {
  const dir = tempDir();
  const events = [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Stop',
    'SessionEnd',
  ];
  const turns = [
    {
      tool_calls: [
        { name: 'Bash', id: 'toolu_ok', input: { command: 'echo fine' } },
        { name: 'Bash', id: 'toolu_bad', input: { command: 'exit 3' } },
      ],
    },
    { text: 'all done' },
  ];
  const run = await runScripted(
    dir,
    turns,
    ['--settings', logging(events), '--allowedTools', 'Bash', '--include-hook-events'],
    {
      prompt: 'hello hooks',
    },
  );
  assert.equal(run.code, 0, run.stderr);
  const log = logged(dir);
  assert.deepEqual(
    log.map((e) => e.hook_event_name),
    [
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'PreToolUse',
      'PostToolUseFailure',
      'Stop',
      'SessionEnd',
    ],
  );
  assert.equal(log[0].source, 'startup');
  assert.equal(log[1].prompt, 'hello hooks');
  assert.equal(log[3].tool_use_id, 'toolu_ok');
  assert.equal(log[3].tool_response.stdout, 'fine');
  assert.equal(log[5].tool_use_id, 'toolu_bad');
  assert.match(log[5].error, /Exit code 3/);
  assert.equal(log[6].last_assistant_message, 'all done');
  assert.equal(log[6].stop_hook_active, false);

  const responses = ofType(run.lines, 'system', 'hook_response');
  assert.deepEqual(
    responses.map((r) => r.hook_event),
    log.map((e) => e.hook_event_name),
  );
  // SessionStart reports before system/init (hook_started, then hook_response); SessionEnd after the result.
  assert.deepEqual(
    run.lines.slice(0, 3).map((l) => l.subtype),
    ['hook_started', 'hook_response', 'init'],
  );
  assert.deepEqual(
    run.lines.slice(-3).map((l) => l.subtype ?? l.type),
    ['success', 'hook_started', 'hook_response'],
  );
  assert.equal(run.lines.at(-1)!.hook_event, 'SessionEnd');
});

test('UserPromptSubmit exit 2 blocks the prompt: no model request; a system/informational notice, then a success result saying so (as Claude Code)', async () => {
  const dir = tempDir();
  const settings = JSON.stringify({
    hooks: {
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "no secrets in prompts" >&2; exit 2' }] }],
    },
  });
  const run = await runScripted(dir, [{ text: 'should not be said' }], ['--settings', settings]);
  assert.equal(run.code, 0);
  assert.equal(ofType(run.lines, 'assistant').length, 0);
  const notice =
    'UserPromptSubmit operation blocked by hook:\n[echo "no secrets in prompts" >&2; exit 2]: no secrets in ' +
    'prompts\n\n\nOriginal prompt: go';
  const informational = run.lines.find((l) => l.type === 'system' && l.subtype === 'informational')!;
  assert.deepEqual(
    [informational.content, informational.level, informational.prevent_continuation],
    [notice, 'warning', true],
  );
  assert.deepEqual(informational.prompt_submit_outcome, {
    kind: 'blocked_by_hook',
    prompt_kept: false,
    reason: 'no secrets in prompts',
  });
  const result = run.lines.at(-1)!;
  assert.deepEqual([result.subtype, result.is_error, result.result, result.num_turns], ['success', false, notice, 0]);
  // As Claude Code 2.1.332: no terminal_reason and no API status on this result.
  assert.equal('terminal_reason' in result || 'api_error_status' in result, false);
});

test('a Stop hook with decision "block" sends the model back with the reason, bounded by stop_hook_active', async () => {
  const dir = tempDir();
  // Blocks the first stop only: the second time stop_hook_active is true.
  const hook =
    `input=$(cat); if echo "$input" | grep -q '"stop_hook_active":false'; then echo ` +
    `'{"decision":"block","reason":"run the tests first"}'; fi`;
  const settings = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: hook }] }] } });
  const run = await runScripted(
    dir,
    [{ text: 'finished' }, { text: 'tests pass, finished' }],
    ['--settings', settings],
  );
  assert.equal(run.code, 0, run.stderr);
  // As Claude Code 2.1.332: the feedback as a synthetic user message, then the stop-hook notice.
  const at = run.lines.findIndex((l) => l.type === 'user' && l.isSynthetic);
  assert.equal(run.lines[at]!.message.content[0].text, 'Stop hook feedback:\nrun the tests first');
  assert.deepEqual(
    [run.lines[at + 1]!.subtype, run.lines[at + 1]!.key, run.lines[at + 2]!.type],
    ['notification', 'stop-hook-error', 'assistant'],
  );
  const result = run.lines.at(-1)!;
  assert.equal(result.result, 'tests pass, finished');
  assert.equal(result.num_turns, 2);
  // Without --include-hook-events, as in Claude Code 2.1.332: no hook_response but a SessionStart hook's.
  assert.equal(ofType(run.lines, 'system', 'hook_response').length, 0);
});

test('continue:false from PostToolUse stops the prompt with hook_stopped; later calls are not run', async () => {
  const dir = tempDir();
  const settings = JSON.stringify({
    hooks: {
      PostToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: `echo '{"continue":false,"stopReason":"enough"}'` }] },
      ],
    },
  });
  const turns = [
    {
      tool_calls: [
        { name: 'Bash', id: 'toolu_1', input: { command: 'echo one' } },
        { name: 'Bash', id: 'toolu_2', input: { command: 'touch two' } },
      ],
    },
    { text: 'never' },
  ];
  const run = await runScripted(dir, turns, ['--settings', settings, '--allowedTools', 'Bash']);
  const result = run.lines.at(-1)!;
  assert.equal(result.terminal_reason, 'hook_stopped');
  assert.match(result.errors[0], /enough/);
  assert.match(toolResults(run.lines).get('toolu_2')!.content, /Not run/);
  assert.equal(
    ofType(run.lines, 'assistant').some((l) => l.message.content[0].text === 'never'),
    false,
    'no further model request',
  );
});

test('PostToolUse additionalContext reaches the model beside the tool result, as a system reminder', async () => {
  const out = { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'remember: output is cached' } };
  const settings = JSON.stringify({
    hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: `echo '${JSON.stringify(out)}'` }] }] },
  });
  const server = await anthropic([toolCall('toolu_c', 'Bash', { command: 'echo x' }), text('ok')]);
  const result = await run(place(), [...STREAM, ...CLAUDE, '--settings', settings, 'go'], { env: server.env });
  assert.equal(result.code, 0, result.stderr);
  // As Claude Code 2.1.332: the tool result stays as the tool gave it, in the stream and in the next request.
  assert.equal(toolResults(parseLines(result.stdout)).get('toolu_c')!.content, 'x');
  assert.deepEqual(server.requests[1]!.body.messages.at(-1).content, [
    { type: 'tool_result', tool_use_id: 'toolu_c', content: 'x', is_error: false },
    { type: 'text', text: '<system-reminder>\nremember: output is cached\n</system-reminder>' },
  ]);
});
