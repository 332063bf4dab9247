/** The property every ACP projection keeps, shared by the faces' tests and the harness tests. */
import assert from 'node:assert/strict';
import type { SessionUpdate } from '../../src/index.ts';

/** Every tool call is announced once and ends with exactly one terminal update (completed or failed). */
export function assertOneTerminalUpdate(updates: SessionUpdate[]): void {
  const calls = updates.filter((u) => u.sessionUpdate === 'tool_call').map((u) => u.toolCallId);
  assert.ok(calls.length > 0, 'there are tool calls');
  for (const id of calls) {
    const terminal = updates.filter(
      (u) =>
        u.sessionUpdate === 'tool_call_update' &&
        u.toolCallId === id &&
        (u.status === 'completed' || u.status === 'failed'),
    );
    assert.equal(terminal.length, 1, `tool call ${id} has ${terminal.length} terminal updates`);
  }
  assert.equal(new Set(calls).size, calls.length, 'every tool call is announced once');
}
