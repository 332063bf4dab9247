/**
 * `onFailure` on hook matchers, through the REAL official SDK: it refuses a session with `onFailure: "block"` unless
 * the initialize answer says `hook_on_failure_supported`; a failing hook set to block stops the action it guards, and
 * one left at the default lets it go ahead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { query, type HookCallbackMatcher, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { sdkOptions, textOf } from './helpers.ts';

const failing = (onFailure?: 'continue' | 'block'): HookCallbackMatcher => ({
  matcher: 'Bash',
  hooks: [
    async () => {
      throw new Error('policy server unreachable');
    },
  ],
  ...(onFailure ? { onFailure } : {}),
});

async function run(onFailure: 'continue' | 'block' | undefined) {
  const options = sdkOptions(
    [{ tool_calls: [{ name: 'Bash', id: 'toolu_t', input: { command: 'touch ran.txt' } }] }, { text: 'done' }],
    {
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      hooks: { PreToolUse: [failing(onFailure)] },
    },
  );
  const messages: SDKMessage[] = [];
  const q = query({ prompt: 'touch it', options });
  for await (const message of q) messages.push(message);
  const toolResult = messages.find(
    (m) => m.type === 'user' && Array.isArray(m.message.content) && m.message.content[0]?.type === 'tool_result',
  );
  return { messages, toolResult, ran: existsSync(path.join(options.cwd, 'ran.txt')) };
}

test('onFailure "block": a PreToolUse callback that throws blocks the call; the session is not refused', async () => {
  const { messages, toolResult, ran } = await run('block');
  assert.equal(ran, false, 'the blocked command did not run');
  assert.match(textOf(toolResult), /PreToolUse:Bash hook error: \[.*\]: failed; blocking because onFailure is "block"/);
  assert.match(textOf(toolResult), /policy server unreachable/);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success');
  assert.deepEqual(
    result.permission_denials.map((d) => d.tool_use_id),
    ['toolu_t'],
  );
});

test('onFailure left at "continue": the failure is reported and the call goes ahead', async () => {
  const { toolResult, ran } = await run(undefined);
  assert.equal(ran, true);
  assert.doesNotMatch(textOf(toolResult), /hook error/);
});

test('onFailure "block" on UserPromptSubmit: the prompt never reaches the model and the result says why', async () => {
  const options = sdkOptions([{ text: 'the model answered' }], {
    hooks: {
      UserPromptSubmit: [
        {
          hooks: [
            async () => {
              throw new Error('classifier down');
            },
          ],
          onFailure: 'block',
        },
      ],
    },
  });
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt: 'hello', options })) messages.push(message);
  assert.equal(
    messages.some((m) => m.type === 'assistant'),
    false,
  );
  const notice = messages.find((m) => m.type === 'system' && m.subtype === 'informational');
  assert.ok(notice && notice.type === 'system' && notice.subtype === 'informational');
  // Not in the SDK's typings of 0.3.332 (Claude Code 2.1.332 sends it).
  const outcome = 'prompt_submit_outcome' in notice ? notice.prompt_submit_outcome : undefined;
  assert.ok(outcome && typeof outcome === 'object');
  assert.deepEqual(
    { ...outcome, reason: '' },
    {
      kind: 'no_verdict',
      no_verdict_kind: 'hook_failed',
      prompt_kept: false,
      reason: '',
    },
  );
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success');
  assert.match(
    result.result,
    /^UserPromptSubmit operation blocked by hook:\n\[.*\]: failed; blocking because onFailure/,
  );
  assert.match(result.result, /classifier down/);
});

test('the initialize answer reports the session state the SDK reads', async () => {
  const options = sdkOptions([{ text: 'ok' }], { hooks: { PreToolUse: [failing('block')] } });
  const q = query({ prompt: 'hi', options });
  const init = (await q.initializationResult()) as Awaited<ReturnType<typeof q.initializationResult>> &
    Record<string, unknown>;
  for await (const _ of q) void _;
  assert.equal(init.hook_on_failure_supported, true);
  assert.equal(init.hooks_applied, true);
  assert.equal(init.current_permission_mode, 'default');
  assert.equal(init.session_state, 'idle');
  assert.equal(init.claude_code_version, '2.1.332');
});
