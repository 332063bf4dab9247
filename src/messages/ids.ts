/** Ids used on the wire. */
import { randomBytes, randomUUID } from 'node:crypto';

/** A fresh RFC 4122 v4 UUID. */
export const newUuid = (): `${string}-${string}-${string}-${string}-${string}` => randomUUID();

/** An id in the style of the Anthropic API (`msg_…`, `toolu_…`). */
export function newApiId(prefix: 'msg' | 'toolu' | 'req'): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
