/**
 * The waterfall of a prompt: its model requests, tool calls and subagents as bars on one time axis, computed from the
 * stream alone (no backend). What the stream says about time:
 * - each `assistant` and `user` message's `timestamp` (when agentpipe emitted it);
 * - the `result`'s `duration_ms` (the prompt's whole time, so its start).
 * A model request runs from the agent's previous event (the prompt's start, a subagent's prompt, the last tool result
 * it waited for) to its last assistant message; a tool call from the assistant message that asked
 * for it to the user message that carries its result; a subagent nests under its Task call. A prompt whose messages
 * carry no timestamps (a stream of another tool) has no waterfall.
 */

/** One bar. Times in ms since the epoch. */
export interface Bar {
  key: string;
  kind: 'prompt' | 'model' | 'tool';
  label: string;
  start: number;
  end: number;
  /** No end in the stream yet (running, or cut): drawn to the prompt's last known time. */
  open: boolean;
  failed: boolean;
  /** A Task call's subagent: its requests and calls. */
  children: Bar[];
}

/** What of a message the waterfall needs, kept per prompt as the messages come. */
export type TimingRecord =
  | {
      k: 'assistant';
      parent: string | null;
      t: number;
      id: string;
      model: string;
      uses: Array<{ id: string; name: string }>;
    }
  | { k: 'results'; parent: string | null; t: number; results: Array<{ id: string; failed: boolean }> }
  /** A subagent's prompt: the subagent starts (its Task call may have waited for other calls before). */
  | { k: 'start'; parent: string; t: number }
  | { k: 'result'; durationMs: number; failed: boolean };

const time = (value: unknown): number | undefined => {
  if (typeof value !== 'string') return undefined;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : undefined;
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The record of a stream message (undefined for those that say nothing about time). */
export function timingRecord(message: Record<string, unknown>): TimingRecord | undefined {
  const parent = typeof message.parent_tool_use_id === 'string' ? message.parent_tool_use_id : null;
  const inner = isObject(message.message) ? message.message : {};
  const content = Array.isArray(inner.content) ? (inner.content as unknown[]).filter(isObject) : [];
  if (message.type === 'result') {
    const durationMs = typeof message.duration_ms === 'number' ? message.duration_ms : 0;
    return { k: 'result', durationMs, failed: message.is_error === true };
  }
  const t = time(message.timestamp);
  if (t === undefined) return undefined;
  if (message.type === 'assistant' && typeof inner.id === 'string') {
    const uses = content.flatMap((b) =>
      b.type === 'tool_use' && typeof b.id === 'string' ? [{ id: b.id, name: String(b.name) }] : [],
    );
    return { k: 'assistant', parent, t, id: inner.id, model: String(inner.model ?? ''), uses };
  }
  if (message.type === 'user') {
    const results = content.flatMap((b) =>
      b.type === 'tool_result' && typeof b.tool_use_id === 'string'
        ? [{ id: b.tool_use_id, failed: b.is_error === true }]
        : [],
    );
    if (results.length) return { k: 'results', parent, t, results };
    if (parent) return { k: 'start', parent, t };
  }
  return undefined;
}

/** An agent's state while the records are walked: where its bars go and when it last heard back. */
interface AgentState {
  bars: Bar[];
  last: number;
  requests: Map<string, Bar>;
}

/** The waterfall of one prompt's records: its bar (children: the main agent's), or undefined without timestamps. */
export function waterfall(records: readonly TimingRecord[], label: string, key: string): Bar | undefined {
  const times = records.flatMap((r) => (r.k === 'result' ? [] : [r.t]));
  if (times.length === 0) return undefined;
  const last = Math.max(...times);
  const result = records.find((r) => r.k === 'result');
  const start = Math.min(Math.min(...times), result ? last - result.durationMs : Infinity);
  const prompt: Bar = {
    key,
    kind: 'prompt',
    label,
    start,
    end: last,
    open: !result,
    failed: result?.failed ?? false,
    children: [],
  };
  const agents = new Map<string | null, AgentState>([
    [null, { bars: prompt.children, last: start, requests: new Map() }],
  ]);
  const tools = new Map<string, Bar>();
  const agentOf = (parent: string | null): AgentState | undefined => {
    const known = agents.get(parent);
    if (known) return known;
    const task = parent ? tools.get(parent) : undefined;
    if (!task) return undefined;
    const agent: AgentState = { bars: task.children, last: task.start, requests: new Map() };
    agents.set(parent, agent);
    return agent;
  };
  for (const r of records) {
    if (r.k === 'result') continue;
    const agent = agentOf(r.parent);
    if (!agent) continue;
    if (r.k === 'assistant') {
      let request = agent.requests.get(r.id);
      if (!request) {
        request = {
          key: `${key}/${r.id}`,
          kind: 'model',
          label: r.model ? `chat ${r.model}` : 'chat',
          start: Math.min(agent.last, r.t),
          end: r.t,
          open: false,
          failed: false,
          children: [],
        };
        agent.requests.set(r.id, request);
        agent.bars.push(request);
      }
      request.end = Math.max(request.end, r.t);
      agent.last = Math.max(agent.last, r.t);
      for (const use of r.uses) {
        const bar: Bar = {
          key: `${key}/${use.id}`,
          kind: 'tool',
          label: use.name,
          start: r.t,
          end: r.t,
          open: true,
          failed: false,
          children: [],
        };
        tools.set(use.id, bar);
        agent.bars.push(bar);
      }
    } else if (r.k === 'start') {
      agent.last = Math.max(agent.last, r.t);
    } else {
      for (const done of r.results) {
        const bar = tools.get(done.id);
        if (!bar) continue;
        bar.end = Math.max(bar.start, r.t);
        bar.open = false;
        bar.failed = done.failed;
      }
      agent.last = Math.max(agent.last, r.t);
    }
  }
  // Calls the stream never answered run to the prompt's end.
  for (const bar of tools.values()) if (bar.open) bar.end = Math.max(bar.end, prompt.end);
  return prompt;
}
