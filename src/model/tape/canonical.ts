/**
 * The canonical form of what a tape compares: a model request as the provider got it (no abort signal, thinking with
 * its budget merged in, no undefined fields), keys in a fixed order for the lookup key, and the ids a wrapped CLI
 * draws for itself (UUIDs in its request bodies) numbered by first appearance.
 */
import { thinkingOf, type ModelRequest } from '../types.ts';
import type { CanonicalRequest } from './format.ts';
import { isArray, isRecord } from '../../process/guards.ts';

/** The request without what does not travel (the signal), as JSON would carry it. */
export function canonicalRequest(request: ModelRequest): CanonicalRequest {
  const thinking = thinkingOf(request);
  const canonical: CanonicalRequest = {
    model: request.model,
    system: request.system,
    tools: request.tools,
    messages: request.messages,
    max_tokens: request.maxTokens,
    ...(thinking ? { thinking } : {}),
    ...(request.effort ? { effort: request.effort } : {}),
    ...(request.betas?.length ? { betas: request.betas } : {}),
  };
  return JSON.parse(JSON.stringify(canonical)) as CanonicalRequest;
}

/** JSON with every object's keys sorted: equal values give equal text, whatever order their keys were built in. */
export function stableStringify(value: unknown): string {
  if (isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stableStringify(v))).join(',')}]`;
  if (!isRecord(value)) return JSON.stringify(value) ?? 'null';
  const record = value;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(record[k])}`).join(',')}}`;
}

const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** UUIDs replaced by `<uuid-1>`, `<uuid-2>` … in the order they first appear (the same UUID, the same number). */
export function numberUuids(value: unknown): unknown {
  const seen = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string')
      return v.replace(UUID_ANYWHERE, (id) => {
        const key = id.toLowerCase();
        let name = seen.get(key);
        if (!name) seen.set(key, (name = `<uuid-${seen.size + 1}>`));
        return name;
      });
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item)]));
    return v;
  };
  return walk(value);
}
