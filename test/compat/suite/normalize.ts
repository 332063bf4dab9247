/**
 * What the differential suite compares, and what it drops first. The stream: every line but the
 * `tool_progress` heartbeats (their count is the machine's speed; run.ts), with
 * only ids, uuids, timestamps, durations, costs, temp paths and ports replaced (keys kept, so a
 * field only one product sends is a difference), and system/init's inventory left out (see
 * INVENTORY). The requests: per message its role and blocks (kinds, texts, tool names and
 * inputs, tool results), with Claude Code's own `<system-reminder>` blocks and its mid-conversation
 * `system` messages dropped; not the system prompt or the tool definitions. The files: every file
 * left in the working folder with its content.
 */
import { readdirSync, readFileSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { RecordedRequest } from '../../model/fake-servers.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The folders of a run whose paths are replaced by placeholders. */
export interface Places {
  cwd: string;
  home: string;
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const PORT = /(127\.0\.0\.1|localhost):\d+/g;
/** Keys whose values are ids: the value is replaced, the key kept. */
const IDS = new Set(['uuid', 'session_id', 'agent_id', 'agentId', 'task_id', 'request_id', 'hook_id', 'parent_uuid']);
/** Keys whose values are times or costs: replaced by 0 (a number) or kept out of the comparison. */
const VOLATILE = new Set([
  'timestamp',
  'duration_ms',
  'duration_api_ms',
  'ttft_ms',
  'ttft_stream_ms',
  'time_to_request_ms',
  'first_content_frame_ms',
  'durationMs',
  'totalDurationMs',
  'elapsed_time_seconds',
  'total_cost_usd',
  'costUSD',
  'totalCostUsd',
  'retry_delay_ms',
  // How long a thinking block streamed (partial-stream.ts): a duration, as the ones above.
  'thinking_duration_ms',
]);
/**
 * system/init fields that list what each product has, not how it behaves: its version, its own
 * slash commands, skills, plugins, agents, capabilities, the socket and memory folders of its
 * installation. agentpipe lists its own (docs/compat.md); the comparison leaves them out.
 */
export const INVENTORY = [
  'claude_code_version',
  'agentpipe_version',
  'slash_commands',
  'terminal_slash_commands',
  'skills',
  'plugins',
  'agents',
  'capabilities',
  'memory_paths',
  'messaging_socket_path',
  'tools',
];

/**
 * The working folder as both products name its transcript folder (`projects/<this>/`): every character but letters
 * and digits a dash, as Claude Code spells it.
 */
const projectFolder = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

/** `text` with the run's folders (also as a project folder's name), ports and uuids replaced. */
export function placeless(text: string, places: Places): string {
  return text
    .split(places.cwd)
    .join('<CWD>')
    .split(projectFolder(places.cwd))
    .join('<CWD-PROJECT>')
    .split(places.home)
    .join('<HOME>')
    .replace(PORT, '<HOST>')
    .replace(UUID, '<UUID>');
}

function walk(value: unknown, places: Places, key = ''): Json {
  if (IDS.has(key) && typeof value === 'string') return '<ID>';
  if (VOLATILE.has(key)) return typeof value === 'number' ? 0 : '<VOLATILE>';
  if (typeof value === 'string') return placeless(value, places);
  if (Array.isArray(value)) return value.map((v) => walk(v, places));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, walk(v, places, k)]));
  }
  return (value ?? null) as Json;
}

/**
 * What an SDK scenario returned (hook inputs, control answers) as compared: the stream's rules (ids, times,
 * durations, costs, folders replaced), without the init inventory's.
 */
export const normalizeValue = (value: unknown, places: Places): Json => walk(value, places);

/** One stdout line as compared. */
export function normalizeLine(line: Record<string, unknown>, places: Places): Json {
  const out = walk(line, places) as Record<string, Json>;
  if (out.type === 'system' && out.subtype === 'init') for (const key of INVENTORY) delete out[key];
  return out;
}

const REMINDER = /\s*<system-reminder>[\s\S]*?<\/system-reminder>\s*/g;
const withoutReminders = (text: string) => text.replace(REMINDER, '\n').trim();

function blockText(content: unknown): string {
  if (typeof content === 'string') return withoutReminders(content);
  if (!Array.isArray(content)) return '';
  return content
    .map((b: Record<string, unknown>) => (b.type === 'text' ? withoutReminders(String(b.text)) : `[${String(b.type)}]`))
    .filter(Boolean)
    .join('\n');
}

function projectBlock(block: Record<string, unknown>): Json | undefined {
  switch (block.type) {
    case 'text': {
      const text = withoutReminders(String(block.text));
      return text ? { type: 'text', text } : undefined;
    }
    case 'tool_use':
      return { type: 'tool_use', id: block.id as string, name: block.name as string, input: block.input as Json };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.tool_use_id as string,
        content: blockText(block.content),
        ...(block.is_error === true ? { is_error: true } : {}),
      };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking as string };
    default:
      return { type: String(block.type) };
  }
}

/** The model requests as compared: the model and each message's role and blocks. */
export function projectRequests(requests: RecordedRequest[], places: Places): Json {
  return requests.map((request) => {
    const body = request.body as Record<string, any>;
    const messages = (body.messages as Array<Record<string, any>>)
      .filter((m) => m.role !== 'system')
      .map((m) => {
        const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
        return { role: m.role, content: (blocks as Array<Record<string, unknown>>).map(projectBlock).filter(Boolean) };
      })
      .filter((m) => m.content.length > 0);
    return walk({ model: body.model, messages }, places);
  });
}

/** Every file and link left in `dir` (relative path → content), folders as `<dir>`. */
export function filesLeft(dir: string, places: Places): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    const full = path.join(dir, rel);
    const info = lstatSync(full);
    if (info.isSymbolicLink()) out[rel] = `<link ${placeless(readlinkSync(full), places)}>`;
    else if (info.isDirectory()) {
      if (rel) out[rel] = '<dir>';
      for (const name of readdirSync(full).sort()) visit(path.join(rel, name));
    } else out[rel] = placeless(readFileSync(full, 'utf8'), places);
  };
  visit('');
  return out;
}

/** The differences between `a` (Claude Code) and `b` (agentpipe), one line each, at most `max`. */
export function differences(a: unknown, b: unknown, max = 12, at = ''): string[] {
  const out: string[] = [];
  const show = (v: unknown) => {
    const s = JSON.stringify(v) ?? 'undefined';
    return s.length > 300 ? `${s.slice(0, 300)}…` : s;
  };
  const go = (x: unknown, y: unknown, where: string) => {
    if (out.length >= max) return;
    if (Object.is(x, y)) return;
    if (Array.isArray(x) && Array.isArray(y)) {
      for (let i = 0; i < Math.max(x.length, y.length); i++) go(x[i], y[i], `${where}[${i}]`);
      return;
    }
    if (x && y && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y)) {
      const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
      for (const k of [...keys].sort())
        go((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${where}.${k}`);
      return;
    }
    out.push(`${where || '.'}: claude ${show(x)} | agentpipe ${show(y)}`);
  };
  go(a, b, at);
  return out;
}
