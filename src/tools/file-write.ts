/**
 * Reads and writes a file the way Write, Edit and NotebookEdit must: never through a symbolic
 * link at its last component (opened with O_NOFOLLOW: a link there, whether it was there when the
 * permission check ran or was swapped in after it, is refused with a clear error and nothing is
 * written), and never through a hard link (a file with other names is replaced by a new file
 * renamed over this name, so its other names, which may be outside the working folders, keep what
 * they held). The checks are on the opened descriptor, so a swap between a check and the write
 * changes nothing. Folders above the last component are resolved as the permission check
 * resolved them (realpath); a folder swapped for a link after the check is not caught here.
 */
import { AgentpipeError, errorCode } from '../process/errors.ts';
import { constants } from 'node:fs';
import { open, readlink, rename, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { kindOf } from './regular-file.ts';

/** The file is a symbolic link (or not a regular file): the tool refuses it, and says why. */
export class LinkedFileError extends AgentpipeError {
  static override readonly errorName: string = 'LinkedFileError';
}

async function linkRefusal(file: string, verb: string): Promise<LinkedFileError> {
  // The message then names no target.
  const target = await readlink(file).catch(() => undefined);
  return new LinkedFileError(
    `${file} is a symbolic link${target === undefined ? '' : ` to ${target}`}: ${verb} does not follow links; ` +
      `use the path it points to`,
  );
}

/** Opens `file` without following a link at its last component; ELOOP becomes a LinkedFileError. */
async function openNoFollow(file: string, flags: number, verb: string, mode?: number): Promise<FileHandle> {
  try {
    return await open(file, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY, mode);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw await linkRefusal(file, verb);
    throw error;
  }
}

/**
 * The text of `file`, or null when it does not exist (or cannot be read: a folder, no permission).
 * A symbolic link throws LinkedFileError: its target's text is not read.
 */
export async function readTextNoFollow(file: string, verb: string): Promise<string | null> {
  let handle: FileHandle;
  try {
    handle = await openNoFollow(file, constants.O_RDONLY, verb);
  } catch (error) {
    if (LinkedFileError.isInstance(error)) throw error;
    return null;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Writes `content` to `file` (created when missing), never through a symbolic or a hard link (module comment). */
export async function writeTextNoFollow(
  file: string,
  content: string,
  verb: string,
  signal?: AbortSignal,
): Promise<void> {
  const handle = await openNoFollow(file, constants.O_WRONLY | constants.O_CREAT, verb, 0o666);
  let replace: number | undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new LinkedFileError(`${file} is ${kindOf(info)}; only regular files can be written`);
    if (info.nlink > 1) replace = info.mode & 0o7777;
    else {
      await handle.truncate(0);
      await handle.writeFile(content, { signal });
    }
  } finally {
    await handle.close();
  }
  if (replace !== undefined) await replaceFile(file, content, replace, signal);
}

/** A new file with `content` renamed over `file`: the old inode, and every other name it has, is left as it was. */
async function replaceFile(file: string, content: string, mode: number, signal?: AbortSignal): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    try {
      await handle.chmod(mode);
      await handle.writeFile(content, { signal });
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    // The temporary file may not exist yet; the write's own failure is thrown.
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
