/** Runs the scripted session through query() and normalizes what comes out, for comparisons and goldens. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { query, type AgentMessage, type QueryOptions } from '../../src/index.ts';
import { promptStream, resultCounter, scriptedOptions } from './scripted-session.ts';

/** Every message of the two-prompt session. */
export async function runScripted(
  extra: Partial<QueryOptions> = {},
): Promise<{ messages: AgentMessage[]; cwd: string }> {
  const options = scriptedOptions(extra);
  const counter = resultCounter();
  const messages: AgentMessage[] = [];
  for await (const message of query({ prompt: promptStream(counter), options })) {
    messages.push(message);
    counter.seen(message);
  }
  return { messages, cwd: options.cwd };
}

/** Replaces run-specific values (ids, paths, times) with stable placeholders. */
export function normalize<T>(value: T, cwd: string): T {
  const ids = new Map<string, string>();
  const stable = (kind: string, id: string) => {
    if (!ids.has(id))
      ids.set(id, `<${kind}${[...ids.keys()].filter((k) => ids.get(k)!.startsWith(`<${kind}`)).length + 1}>`);
    return ids.get(id)!;
  };
  const text = JSON.stringify(value, (key, v) => {
    if (
      [
        'timestamp',
        'duration_ms',
        'duration_api_ms',
        'duration',
        'elapsed_time_seconds',
        'agentpipe_version',
        'agentpipeVersion',
        'durationMs',
        'totalDurationMs',
        'agentId',
      ].includes(key)
    )
      return `<${key}>`;
    if (typeof v !== 'string') return v;
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return stable('uuid', v);
    if (/^msg_[A-Za-z0-9_-]+$/.test(v)) return stable('msg', v);
    if (/^msg_[A-Za-z0-9_-]+:\d+$/.test(v)) return `${stable('msg', v.split(':')[0])}:${v.split(':')[1]}`;
    return v.split(cwd).join('<cwd>');
  });
  return JSON.parse(text) as T;
}

/** Compares with test/sdk/golden/<name>.json; UPDATE_GOLDEN=1 rewrites it. */
export function assertGolden(name: string, actual: unknown): void {
  const file = path.join(import.meta.dirname, 'golden', `${name}.json`);
  if (process.env.UPDATE_GOLDEN) writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
  assert.deepEqual(actual, JSON.parse(readFileSync(file, 'utf8')));
}

/** The key fields of a message, the same for both engines of query(). */
export function keyFields(message: AgentMessage): Record<string, unknown> {
  const m = message as Record<string, any>;
  return {
    type: m.type,
    subtype: m.subtype,
    parent: m.parent_tool_use_id ?? null,
    content: m.message?.content,
    event: m.event ? { type: m.event.type, delta: m.event.delta } : undefined,
    is_error: m.is_error,
    result: m.result,
    errors: m.errors,
    num_turns: m.num_turns,
    tools: m.tools,
    model: m.model,
    denials: m.permission_denials?.map((d: Record<string, unknown>) => d.tool_use_id),
  };
}
