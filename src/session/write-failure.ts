/**
 * Why a file under agentpipe's home could not be written, in words a user can act on ("the disk is
 * full (ENOSPC)", "/home/me/.agentpipe is a file, not a folder"), not a raw errno line. A session
 * whose transcript cannot be written goes on without it and says so once (see `transcriptOff`).
 */
import { errorCode, errorMessage } from '../process/errors.ts';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

const WORDS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EIO: 'an input/output error',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links',
};

/** Why `target` could not be written, given the error that said so. */
export function whyNotWritable(error: unknown, target: string): string {
  const code = errorCode(error);
  if (code && WORDS[code]) return `${WORDS[code]} (${code})`;
  // A missing or wrong folder on the way: a file in the way, or a folder that cannot be written (a
  // recursive mkdir on a read-only file system says ENOENT).
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EEXIST') {
    const found = nearestExisting(path.dirname(target));
    if (found && !found.directory) return `${found.path} is a file, not a folder`;
    if (found) {
      try {
        accessSync(found.path, constants.W_OK);
      } catch (denied) {
        const deniedCode = errorCode(denied);
        if (deniedCode && WORDS[deniedCode]) return `${WORDS[deniedCode]} (${deniedCode}, at ${found.path})`;
      }
    }
  }
  return code ?? errorMessage(error);
}

/** The one warning of a session whose transcript is off (`midway`: its lines so far were written). */
export function transcriptOff(file: string, error: unknown, midway = false): string {
  return (
    `agentpipe: warning: the transcript is off: cannot write ${file}: ${whyNotWritable(error, file)}; ` +
    (midway ? 'the rest of this session is not saved' : 'this session is not saved (--resume cannot continue it)')
  );
}

/** The deepest existing entry on the way to `dir`, and whether it is a folder. */
function nearestExisting(dir: string): { path: string; directory: boolean } | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      return { path: at, directory: statSync(at).isDirectory() };
    } catch {
      if (path.dirname(at) === at) return undefined;
    }
  }
}
