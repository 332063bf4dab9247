/**
 * Reads and writes a file the way Write, Edit and NotebookEdit must: never through a symbolic
 * link at its last component (opened with O_NOFOLLOW: a link there, whether it was there when the
 * permission check ran or was swapped in after it, is refused with a clear error and nothing is
 * written), and never through a hard link (a file with other names is replaced by a new file
 * renamed over this name, so its other names, which may be outside the working folders, keep what
 * they held). The checks are on the opened descriptor, so a swap between a check and the write
 * changes nothing. The folder above the file is opened first and the file named through it
 * (`/proc/self/fd/<folder>/<name>`); given where the permission check judged the file to be
 * (`judged`, judged-path.ts), the opened folder must be that one: a folder on the path swapped for
 * a link after the check is refused, not followed. (Without /proc the folder's path is compared,
 * and a swap in the instant between that and the open is not caught.)
 */
import { AgentpipeError, errorCode } from '../process/errors.ts';
import { constants } from 'node:fs';
import { open, readlink, rename, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { hasProcFd, openedPath } from './opened-path.ts';
import { kindOf } from './regular-file.ts';

/**
 * The file is a symbolic link (or not a regular file), or its folder no longer leads where the call was judged to
 * write: the tool refuses it, and says why.
 */
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

/** Opens `entry` without following a link at its last component; ELOOP becomes a LinkedFileError about `file`. */
async function openNoFollow(
  file: string,
  entry: string,
  flags: number,
  verb: string,
  mode?: number,
): Promise<FileHandle> {
  try {
    return await open(entry, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY, mode);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw await linkRefusal(file, verb);
    throw error;
  }
}

/** The folder `file` is in, opened, and how to name an entry of that very folder whatever is renamed meanwhile. */
interface Folder {
  readonly handle: FileHandle;
  entry(name: string): string;
}

/**
 * Opens the folder of `file`; with `judged`, refuses one that is not the folder the call was judged to write in (a
 * folder on the path replaced by a link since).
 */
async function openFolder(file: string, verb: string, judged: string | undefined): Promise<Folder> {
  const folder = path.dirname(file);
  const handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY);
  const through = `/proc/self/fd/${handle.fd}`;
  if (judged !== undefined) {
    const real = await openedPath(handle, folder).catch(() => '');
    if (real !== path.dirname(judged)) {
      await handle.close();
      throw new LinkedFileError(
        `${file}: ${verb} refused: its folder now leads to ${real || 'a removed folder'}, not to ` +
          `${path.dirname(judged)} as when the call was judged (a folder on the path was replaced by a link)`,
      );
    }
  }
  return { handle, entry: (name) => (hasProcFd() ? `${through}/${name}` : path.join(folder, name)) };
}

/**
 * The text of `file`, or null when it does not exist (or cannot be read: a folder, no permission).
 * A symbolic link, or a folder that no longer leads to `judged`'s, throws LinkedFileError: its target's text is not
 * read.
 */
export async function readTextNoFollow(file: string, verb: string, judged?: string): Promise<string | null> {
  let folder: Folder;
  let handle: FileHandle;
  try {
    folder = await openFolder(file, verb, judged);
  } catch (error) {
    if (LinkedFileError.isInstance(error)) throw error;
    return null;
  }
  try {
    handle = await openNoFollow(file, folder.entry(path.basename(file)), constants.O_RDONLY, verb);
  } catch (error) {
    if (LinkedFileError.isInstance(error)) throw error;
    return null;
  } finally {
    await folder.handle.close();
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** How a write is done: its abort signal, and where the call was judged to write (judged-path.ts). */
export interface WriteOptions {
  signal?: AbortSignal;
  judged?: string;
}

/** Writes `content` to `file` (created when missing), never through a symbolic or a hard link (module comment). */
export async function writeTextNoFollow(
  file: string,
  content: string,
  verb: string,
  { signal, judged }: WriteOptions = {},
): Promise<void> {
  const folder = await openFolder(file, verb, judged);
  try {
    const name = folder.entry(path.basename(file));
    const handle = await openNoFollow(file, name, constants.O_WRONLY | constants.O_CREAT, verb, 0o666);
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
    if (replace !== undefined) await replaceFile(folder, path.basename(file), content, replace, signal);
  } finally {
    await folder.handle.close();
  }
}

/**
 * A new file with `content` renamed over `name` in `folder`: the old inode, and every other name it has, is left as
 * it was.
 */
async function replaceFile(
  folder: Folder,
  name: string,
  content: string,
  mode: number,
  signal?: AbortSignal,
): Promise<void> {
  const temporary = folder.entry(`.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    try {
      await handle.chmod(mode);
      await handle.writeFile(content, { signal });
    } finally {
      await handle.close();
    }
    await rename(temporary, folder.entry(name));
  } catch (error) {
    // The temporary file may not exist yet; the write's own failure is thrown.
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
