/** Ids used on the wire. */
import { randomBytes, randomUUID } from 'node:crypto';

/** A fresh RFC 4122 v4 UUID. */
export const newUuid = (): `${string}-${string}-${string}-${string}-${string}` => randomUUID();

/** An id in the style of the Anthropic API (`msg_…`, `toolu_…`). */
export function newApiId(prefix: 'msg' | 'toolu' | 'req'): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

/** Any RFC 4122 UUID, case-insensitive (session ids, message uuids). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
