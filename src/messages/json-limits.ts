/**
 * Limits on the JSON a client sends (stdin stream-json, WebSocket frames, the cluster's inbox, ACP):
 * the nesting depth here, the size where lines are framed (ndjson.ts, the transports' max payload).
 * `JSON.parse` reads any depth, but `JSON.stringify`, schema checks and every recursive walk
 * after it overflow the stack near a few thousand levels: one 10,000-deep message killed
 * `serve --ui` (issue 27). A value deeper than the limit is refused where it enters, with an error
 * that says so, before anything recursive sees it.
 */
import { envNumber } from '../process/env-number.ts';
import { isRecord } from '../process/guards.ts';

/** Default deepest nesting a client's JSON may have (objects and arrays; `{}` is 1). */
export const DEFAULT_MAX_DEPTH = 200;

/** The limit: `AGENTPIPE_MAX_INPUT_DEPTH` when set to a positive whole number, else the default. */
export function maxDepthFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return envNumber('AGENTPIPE_MAX_INPUT_DEPTH', DEFAULT_MAX_DEPTH, { integer: true, env });
}

/** The default limit, read once (the parsers call `nestedDeeper` on every line). */
let processLimit: number | undefined;
const limitOfProcess = (): number => (processLimit ??= maxDepthFromEnv());

/**
 * True when `value` nests objects or arrays deeper than `limit`. Iterative (any depth is safe to
 * ask about); it visits each object and array once, so a wide value costs linear time.
 */
export function nestedDeeper(value: unknown, limit = limitOfProcess()): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: object[] = [value];
  const depths: number[] = [1];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const depth = depths.pop()!;
    if (depth > limit) return true;
    const children: unknown[] = Object.values(node);
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue;
      stack.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** The error a refused value gets, naming the limit and how to change it. */
export function tooDeepError(limit = limitOfProcess()): string {
  return `JSON nested deeper than ${limit} levels (AGENTPIPE_MAX_INPUT_DEPTH)`;
}

/** A JSON-RPC id (`null`: none could be read). */
type Id = string | number | null;

const HEAD_ID = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/;

/**
 * A refused JSON-RPC message's id and whether it is a request, read from the parsed value or, for a line that
 * could not be parsed (too long, broken), from its head.
 */
export function identify(value: unknown, head: string): { id: Id; request: boolean } {
  if (isRecord(value)) {
    const m = value;
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
    return { id, request: 'method' in m };
  }
  const raw = HEAD_ID.exec(head.slice(0, 4096))?.[1];
  let id: Id = null;
  try {
    const parsed: unknown = raw === undefined ? null : JSON.parse(raw);
    id = typeof parsed === 'string' || typeof parsed === 'number' ? parsed : null;
  } catch {
    id = null;
  }
  return { id, request: /"method"\s*:/.test(head.slice(0, 4096)) };
}
