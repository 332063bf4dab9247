/**
 * What a hook is given, through the REAL official SDK: `transcript_path` is the session's transcript file (a hook
 * script can read the conversation), `prompt_id` the running prompt's uuid, the same for every hook of the prompt, and
 * a tool's hooks the requests' `effort`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { query, type HookInput, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { sdkOptions } from './helpers.ts';

test('hooks get the transcript file, the prompt id and the effort', async () => {
  const seen: HookInput[] = [];
  const record = async (input: HookInput) => (seen.push(input), {});
  const options = sdkOptions(
    [{ tool_calls: [{ name: 'Bash', id: 'toolu_e', input: { command: 'echo hi' } }] }, { text: 'done' }],
    {
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      effort: 'low',
      hooks: { UserPromptSubmit: [{ hooks: [record] }], PreToolUse: [{ matcher: 'Bash', hooks: [record] }] },
    },
  );
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt: 'say hi', options })) messages.push(message);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result');
  assert.deepEqual(
    seen.map((i) => i.hook_event_name),
    ['UserPromptSubmit', 'PreToolUse'],
  );
  const [prompt, pre] = seen as Array<HookInput & { prompt_id?: string }>;
  assert.match(prompt!.prompt_id ?? '', /^[0-9a-f-]{36}$/);
  assert.equal(pre!.prompt_id, prompt!.prompt_id);
  assert.ok(pre!.transcript_path.endsWith(`${result.session_id}.jsonl`), pre!.transcript_path);
  assert.ok(existsSync(pre!.transcript_path));
  assert.match(readFileSync(pre!.transcript_path, 'utf8'), /say hi/);
  // The requests' effort on a tool's hooks, as Claude Code sends it; not on the prompt's.
  assert.deepEqual((pre as { effort?: unknown }).effort, { level: 'low' });
  assert.equal('effort' in prompt!, false);
});
