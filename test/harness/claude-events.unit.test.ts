/**
 * The declared lines of a wrapped Claude Code (or Qwen Code): parsed once where they enter, each
 * field read leniently (one field of an unexpected type reads as absent, never loses the result),
 * and nothing outside the union's values (a terminal_reason, an error subtype) taken as one of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ClaudeControlRequestSchema,
  ClaudeInitSchema,
  ClaudeResultSchema,
  errorSubtypeOf,
} from '../../src/harness/claude-events.ts';

test("a result: usage per model, Claude Code's timings, a known terminal_reason", () => {
  const result = ClaudeResultSchema.parse({
    type: 'result',
    subtype: 'success',
    result: 'done',
    num_turns: 2,
    duration_api_ms: 120,
    terminal_reason: 'completed',
    ttft_ms: 40,
    modelUsage: { 'claude-x': { inputTokens: 10, outputTokens: 5, costUSD: 0.01 }, broken: 'no' },
    extra: { kept: true },
  });
  assert.equal(result.result, 'done');
  assert.equal(result.terminal_reason, 'completed');
  assert.deepEqual(
    result.modelUsage.map(([model, u]) => [model, u.inputTokens, u.outputTokens, u.cacheReadInputTokens, u.costUSD]),
    [['claude-x', 10, 5, undefined, 0.01]],
  );
  assert.deepEqual(Reflect.get(result, 'extra'), { kept: true });
});

test('fields of an unexpected type read as absent; an unknown terminal_reason is not a TerminalReason', () => {
  const result = ClaudeResultSchema.parse({
    type: 'result',
    subtype: 42,
    num_turns: 'two',
    duration_api_ms: Infinity,
    terminal_reason: 'teleported',
    errors: ['first', 7, 'second'],
    error: { message: 'qwen says no' },
    modelUsage: 'none',
    usage: { input_tokens: 3, output_tokens: 'x' },
  });
  assert.equal(result.subtype, 'unknown');
  assert.equal(result.num_turns, undefined);
  assert.equal(result.duration_api_ms, undefined);
  assert.equal(result.terminal_reason, undefined);
  assert.deepEqual(result.errors, ['first', 'second']);
  assert.equal(result.error?.message, 'qwen says no');
  assert.deepEqual(result.modelUsage, []);
  assert.equal(result.usage?.input_tokens, 3);
  assert.equal(result.usage?.output_tokens, undefined);
  assert.equal(errorSubtypeOf('error_max_turns'), 'error_max_turns');
  assert.equal(errorSubtypeOf('error_from_the_future'), 'error_during_execution');
});

test('a can_use_tool request: its fields as the permission prompt shows them; a malformed request has no subtype', () => {
  const line = ClaudeControlRequestSchema.parse({
    type: 'control_request',
    request_id: 'r1',
    request: {
      subtype: 'can_use_tool',
      tool_name: 'Bash',
      input: { command: 'ls' },
      permission_suggestions: [{ type: 'addRules' }],
      display_name: 7,
      description: 'List files',
    },
  });
  assert.equal(line.request.tool_name, 'Bash');
  assert.deepEqual(line.request.input, { command: 'ls' });
  assert.equal(line.request.display_name, undefined);
  assert.equal(line.request.description, 'List files');
  const malformed = ClaudeControlRequestSchema.parse({ type: 'control_request', request_id: 'r2', request: 'x' });
  assert.equal(malformed.request.subtype, undefined);
});

test("system/init: the CLI's session id, model, cwd and its tool names (strings only)", () => {
  const init = ClaudeInitSchema.parse({
    type: 'system',
    subtype: 'init',
    session_id: 'native-1',
    model: 'claude-x',
    tools: ['Bash', 3, 'Read'],
    cwd: 5,
  });
  assert.deepEqual(
    [init.session_id, init.model, init.tools, init.cwd],
    ['native-1', 'claude-x', ['Bash', 'Read'], undefined],
  );
});
