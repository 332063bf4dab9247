/** Hooks of the SDK client (`initialize.hooks` → `hook_callback` requests) and of the library. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { ofType, runInProcess, toolResults } from '../helpers/agent-run.ts';

test('initialize.hooks: the CLI sends hook_callback, the client denies, the call is reported as denied', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Bash', id: 'toolu_s', input: { command: 'touch ran' } }] },
    { text: 'ok' },
  ]);
  const child = startCli([...scriptedStreamArgs(script), '--input-format', 'stream-json', '--include-hook-events'], {
    cwd: dir,
  });
  const send = (line: unknown) => child.stdin!.write(`${JSON.stringify(line)}\n`);
  send({
    type: 'control_request',
    request_id: 'init_1',
    request: { subtype: 'initialize', hooks: { PreToolUse: [{ matcher: 'Bash', hookCallbackIds: ['hook_0'] }] } },
  });
  send({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    parent_tool_use_id: null,
  });
  const lines: Array<Record<string, any>> = [];
  for await (const text of createInterface({ input: child.stdout! })) {
    const line = JSON.parse(text);
    lines.push(line);
    if (line.type === 'control_request' && line.request.subtype === 'hook_callback') {
      assert.equal(line.request.callback_id, 'hook_0');
      assert.equal(line.request.tool_use_id, 'toolu_s');
      assert.equal(line.request.input.hook_event_name, 'PreToolUse');
      assert.deepEqual(line.request.input.tool_input, { command: 'touch ran' });
      send({
        type: 'control_response',
        response: {
          subtype: 'success',
          request_id: line.request_id,
          response: {
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: 'client says no',
            },
          },
        },
      });
    }
    if (line.type === 'result') child.stdin!.end();
  }
  const result = lines.find((l) => l.type === 'result')!;
  assert.equal(result.permission_denials[0].tool_use_id, 'toolu_s');
  assert.match(toolResults(lines).get('toolu_s')!.content, /client says no/);
  const [hook] = ofType(lines, 'system', 'hook_response');
  assert.equal(hook.hook_event, 'PreToolUse');
  assert.equal(hook.outcome, 'success');
  assert.match(hook.stdout, /client says no/);
});

test('library callbacks get the input, tool use id and a signal; one rewrites, the matcher picks tools', async () => {
  const seen: Array<{ event: string; tool?: unknown; id?: string }> = [];
  const out = await runInProcess(
    [{ tool_calls: [{ name: 'Bash', id: 'toolu_l', input: { command: 'echo before' } }] }, { text: 'ok' }],
    {
      cwd: tempDir(),
      allowedTools: ['Bash'],
      includeHookEvents: true,
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              async (input, id, { signal }) => {
                assert.ok(signal instanceof AbortSignal);
                seen.push({ event: input.hook_event_name, tool: input.tool_input, id });
                return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'echo after' } } };
              },
            ],
          },
          {
            matcher: 'Read',
            hooks: [
              async () => {
                throw new Error('must not run for Bash');
              },
            ],
          },
        ],
        PostToolUse: [
          {
            hooks: [
              async (input) => {
                seen.push({ event: input.hook_event_name, tool: input.tool_response, id: input.tool_use_id as string });
              },
            ],
          },
        ],
      },
    },
  );
  assert.deepEqual(seen[0], { event: 'PreToolUse', tool: { command: 'echo before' }, id: 'toolu_l' });
  assert.equal(seen[1]!.event, 'PostToolUse');
  assert.equal((seen[1]!.tool as any).stdout, 'after');
  assert.equal(toolResults(out).get('toolu_l')!.content, 'after');
  assert.deepEqual(
    ofType(out, 'system', 'hook_response').map((h) => h.hook_event),
    ['PreToolUse', 'PostToolUse'],
  );
});

test('a callback that throws is reported as an error and does not block', async () => {
  const out = await runInProcess(
    [{ tool_calls: [{ name: 'Glob', id: 'toolu_e', input: { pattern: '*' } }] }, { text: 'ok' }],
    {
      cwd: tempDir(),
      includeHookEvents: true,
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async () => {
                throw new Error('hook broke');
              },
            ],
          },
        ],
      },
    },
  );
  const [hook] = ofType(out, 'system', 'hook_response');
  assert.equal(hook.outcome, 'error');
  assert.equal(hook.stderr, 'hook broke');
  assert.notEqual(toolResults(out).get('toolu_e')!.is_error, true);
});
