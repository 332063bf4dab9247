/**
 * A stream as a client compares two runs of one session: without ids (each distinct id becomes `<id-1>`, `<id-2>` …
 * by first appearance, so what refers to what is still compared), times, costs and versions, with the working
 * folder as `<cwd>`, and without the heartbeats (`tool_progress`), whose number depends on the clock, or `auth_status`
 * (the credentials of one run: a replay needs none).
 */
import type { AgentMessage } from '../messages/types.ts';
import { describeDifference, firstDifference } from '../model/tape/diff.ts';
import { mapMessages } from '../model/tape/deltas.ts';
import { pathMapper } from '../model/tape/scene.ts';
import { CLOCK_FIELDS, NESTED_CLOCK_FIELDS } from './tape-ids.ts';
import { isRecord } from '../process/guards.ts';

/** Fields that name something (their values are ids). */
const ID_FIELDS = new Set([
  'uuid',
  'session_id',
  'id',
  'tool_use_id',
  'parent_tool_use_id',
  'task_id',
  'hook_id',
  'agent_id',
  'agentId',
  'harness_session_id',
  'request_id',
]);
/** Fields that hold times, costs or versions. */
const DROPPED = new Set<string>([
  ...CLOCK_FIELDS,
  ...NESTED_CLOCK_FIELDS,
  'elapsed_time_seconds',
  'total_cost_usd',
  'costUSD',
  'totalCostUsd',
  'agentpipe_version',
  'claude_code_version',
]);
const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The messages a comparison of two runs looks at. */
const compared = (message: AgentMessage) => message.type !== 'tool_progress' && message.type !== 'auth_status';

/** The messages of a stream as a client compares them; `cwd`: the folder the run worked in. */
export function normalizeStream(messages: AgentMessage[], cwd: string): unknown[] {
  const ids = new Map<string, string>();
  const idOf = (value: string) => {
    let name = ids.get(value);
    if (!name) ids.set(value, (name = `<id-${ids.size + 1}>`));
    return name;
  };
  const text = (value: string) => value.replace(UUID_ANYWHERE, (id) => idOf(id));
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') return key !== undefined && ID_FIELDS.has(key) ? idOf(value) : text(value);
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (isRecord(value))
      // Keys in a fixed order: ids are numbered in the order they are met, whatever order an object was built in.
      return Object.fromEntries(
        Object.keys(value)
          .filter((k) => !DROPPED.has(k))
          .sort()
          .map((k) => [k, walk(value[k], k)]),
      );
    return value;
  };
  const kept = messages.filter(compared);
  // The folder as <cwd>, in streamed deltas too (a path cut across deltas: tape/deltas.ts).
  const folder = pathMapper([[cwd, '<cwd>']]);
  return (folder ? mapMessages(kept, folder) : kept).map((m) => walk(m));
}

/** The first difference between a recorded stream and a replayed one, or undefined when a client sees the same. */
export function streamDifference(
  recorded: AgentMessage[],
  recordedCwd: string,
  replayed: AgentMessage[],
  replayedCwd: string,
): string | undefined {
  const [a, b] = [normalizeStream(recorded, recordedCwd), normalizeStream(replayed, replayedCwd)];
  const shown = (messages: AgentMessage[]) => messages.filter(compared);
  const [kept, mine] = [shown(recorded), shown(replayed)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const kind = describeKind(mine[i] ?? kept[i]);
    if (i >= a.length) return `message ${i + 1} (${kind}): the replay sent it; the recording ended before`;
    if (i >= b.length) return `message ${i + 1} (${kind}): the recording sent it; the replay ended before`;
    const difference = firstDifference(a[i], b[i]);
    if (difference) return `message ${i + 1} (${kind}): ${describeDifference(difference)}`;
  }
  return undefined;
}

function describeKind(message: AgentMessage | undefined): string {
  if (!message) return 'none';
  return message.type === 'system' ? `system/${message.subtype}` : message.type;
}
