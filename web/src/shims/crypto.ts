/** The part of `node:crypto` src/messages/ids.ts uses, on the browser's Web Crypto. */
type Uuid = `${string}-${string}-${string}-${string}-${string}`;

/** `crypto.randomUUID` exists only in secure contexts (not on plain http off loopback). */
export function randomUUID(): Uuid {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID() as Uuid;
  const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` as Uuid;
}

export function randomBytes(size: number): { toString(encoding: 'base64url'): string } {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(size));
  return {
    toString: () =>
      btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, ''),
  };
}
