/** The part of `node:fs` src/messages/ids.ts uses: a page has no /dev/urandom, so ids.ts falls back to Web Crypto. */
export function openSync(..._args: unknown[]): number {
  throw new Error('no file system in the browser');
}

export function readSync(..._args: unknown[]): number {
  throw new Error('no file system in the browser');
}

export function closeSync(..._args: unknown[]): void {}
