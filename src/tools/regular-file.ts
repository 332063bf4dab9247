/**
 * Reads a file only when it is a regular file, and never more than a cap: devices (/dev/zero,
 * /dev/stdin, a terminal), FIFOs and sockets are refused with a clear error. The file is opened
 * non-blocking (opening a FIFO would otherwise wait for a writer, past any interrupt) and checked
 * with fstat on the opened descriptor, so a path swapped after a check cannot slip through.
 */
import { AgentpipeError } from '../process/errors.ts';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { openedPath } from './opened-path.ts';

/** A file that is not a regular file, or is larger than allowed. */
export class NotReadableError extends AgentpipeError {
  static override readonly errorName: string = 'NotReadableError';
}

/** What a non-regular file is, in words. */
export function kindOf(stat: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
}): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/**
 * `file` opened read-only (non-blocking: a FIFO does not wait for a writer; never as a controlling terminal). Given
 * `judged`, where the permission check judged it to be (judged-path.ts), what was opened must be that (its
 * `/proc/self/fd` link): a path swapped for a link after the check (by a job of the model's in the background) is
 * refused (`verb` says what was refused), not opened.
 */
export async function openJudged(file: string, judged: string | undefined, verb: string): Promise<FileHandle> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  if (judged === undefined) return handle;
  const opened = await openedPath(handle, file).catch(() => '');
  if (opened === judged) return handle;
  await handle.close();
  throw new NotReadableError(leadsElsewhere(file, verb, opened, judged));
}

/** Why a call was refused: `file` leads to `now` (empty: to nothing), not to `judged` as when the call was judged. */
export function leadsElsewhere(file: string, verb: string, now: string, judged: string): string {
  return (
    `${file}: ${verb} refused: it now leads to ${now || 'a removed file'}, not to ${judged} as when the call was ` +
    `judged (a path on the way was replaced by a link)`
  );
}

/**
 * The bytes of a regular file of at most `maxBytes`; throws NotReadableError otherwise. Given `judged`, the opened file
 * must be the one the check judged (`openJudged`).
 */
export async function readRegularFile(
  file: string,
  maxBytes: number,
  signal?: AbortSignal,
  judged?: string,
): Promise<Buffer> {
  const handle = await openJudged(file, judged, 'read');
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotReadableError(`${file} is ${kindOf(info)}; only regular files can be read`);
    if (info.size > maxBytes)
      throw new NotReadableError(`${file} is ${info.size} bytes, over the ${maxBytes} byte limit`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      signal?.throwIfAborted();
      const buffer = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      // It grew while being read: the cap holds all the same.
      if (total > maxBytes) throw new NotReadableError(`${file} is over the ${maxBytes} byte limit`);
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}
