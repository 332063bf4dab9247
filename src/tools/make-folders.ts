/**
 * Making a file's missing folders where the call was judged to write (Write, the ACP client's fs write). A plain
 * `mkdir -p` follows every link on the path as it is at that instant: a folder swapped for a link after the last check
 * would have the folders made outside the working folders (empty, but there). Instead the deepest existing folder is
 * opened and must be the judged one (its real path, read from the open descriptor), and each missing level is made
 * inside the opened parent (`/proc/self/fd/<parent>/<name>`) and opened without following a link, so a swap anywhere
 * on the path is refused, not followed. (Without /proc the folders are made by path, after the same check.)
 */
import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { hasProcFd, openedPath } from './opened-path.ts';
import { errorCode } from '../process/errors.ts';
import { LinkedFileError } from './file-write.ts';

const FOLDER = constants.O_RDONLY | constants.O_DIRECTORY;

/** `judged` (an absolute real path) made with its missing parents, only inside the folders it names (above). */
export async function makeJudgedFolder(judged: string, verb: string): Promise<void> {
  const missing: string[] = [];
  let at = judged;
  let handle: FileHandle | undefined;
  while (!handle) {
    try {
      handle = await open(at, FOLDER);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' || path.dirname(at) === at) throw error;
      missing.unshift(path.basename(at));
      at = path.dirname(at);
    }
  }
  if (!missing.length) return handle.close();
  const proc = hasProcFd();
  let parent: FileHandle = handle;
  try {
    const real = await openedPath(parent, at);
    if (real !== at) throw refusal(judged, verb, at, real);
    for (let i = 0; i < missing.length; i++) {
      const entry: string = proc
        ? `/proc/self/fd/${parent.fd}/${missing[i]}`
        : path.join(at, ...missing.slice(0, i + 1));
      await mkdir(entry).catch((error: unknown) => {
        if (errorCode(error) !== 'EEXIST') throw error;
      });
      const next: FileHandle = await open(entry, FOLDER | constants.O_NOFOLLOW).catch((error: unknown) => {
        throw ['ELOOP', 'ENOTDIR'].includes(errorCode(error) ?? '') ? refusal(judged, verb, entry, 'a link') : error;
      });
      await parent.close();
      parent = next;
    }
  } finally {
    await parent.close();
  }
}

function refusal(judged: string, verb: string, at: string, real: string): LinkedFileError {
  return new LinkedFileError(
    `${judged}: ${verb} refused: ${at} now leads to ${real}, not where the call was judged to write ` +
      `(a folder on the path was replaced by a link)`,
  );
}
