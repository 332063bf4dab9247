/**
 * Ids used on the wire. The random bytes come from the kernel's CSPRNG (/dev/urandom) through a
 * pool, as `crypto.randomUUID()` draws from a cached pool of OpenSSL's: loading node:crypto
 * costs every start-up ~5 ms (about twenty internal modules) for the few ids a short run needs.
 * A refill (16 KiB: a thousand UUIDs) is three system calls. Where there is no /dev/urandom
 * (Windows; the viewer page, whose bundle stands in for node:fs), Web Crypto fills the pool.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const pool = new Uint8Array(16 * 1024);
let next = pool.length;

function refill(): void {
  let fd: number | undefined;
  try {
    fd = openSync('/dev/urandom', 'r');
    for (let filled = 0; filled < pool.length;) filled += readSync(fd, pool, filled, pool.length - filled, null);
  } catch {
    globalThis.crypto.getRandomValues(pool);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  next = 0;
}

/** `count` (at most the pool's size) fresh random bytes; valid until the next call. */
function randomBytes(count: number): Uint8Array {
  if (next + count > pool.length) refill();
  const bytes = pool.subarray(next, next + count);
  next += count;
  return bytes;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A fresh RFC 4122 v4 UUID. */
export function newUuid(): `${string}-${string}-${string}-${string}-${string}` {
  const b = randomBytes(16);
  const x = (i: number): string => HEX[b[i]!]!;
  // Version 4 in the high nibble of byte 6, variant 10xx in the top bits of byte 8.
  const version = HEX[(b[6]! & 0x0f) | 0x40]!;
  const variant = HEX[(b[8]! & 0x3f) | 0x80]!;
  const node = x(10) + x(11) + x(12) + x(13) + x(14) + x(15);
  return `${x(0) + x(1) + x(2) + x(3)}-${x(4) + x(5)}-${version + x(7)}-${variant + x(9)}-${node}`;
}

/** An id in the style of the Anthropic API (`msg_…`, `toolu_…`): 12 random bytes in base64url. */
export function newApiId(prefix: 'msg' | 'toolu' | 'req'): string {
  const b = randomBytes(12);
  let id = `${prefix}_`;
  for (let i = 0; i < 12; i += 3) {
    const n = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
    id += BASE64URL[n >> 18]! + BASE64URL[(n >> 12) & 63]! + BASE64URL[(n >> 6) & 63]! + BASE64URL[n & 63]!;
  }
  return id;
}

/** Any RFC 4122 UUID, case-insensitive (session ids, message uuids). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
