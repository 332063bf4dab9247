/**
 * Where an opened file or folder is: its descriptor's path (`/proc/self/fd/<n>`), which names what was opened whatever
 * its path names since. Where /proc is missing, the path resolved again: the best there is. The file tools compare it
 * with where their call was judged to be (judged-path.ts).
 */
import { existsSync } from 'node:fs';
import { readlink, realpath, type FileHandle } from 'node:fs/promises';

let procFd: boolean | undefined;

/** Whether this process can name its descriptors through /proc (checked once). */
export function hasProcFd(): boolean {
  return (procFd ??= existsSync('/proc/self/fd'));
}

/** The real path of what `handle` (opened as `opened`) is; rejects when it cannot be told. */
export async function openedPath(handle: FileHandle, opened: string): Promise<string> {
  return hasProcFd() ? readlink(`/proc/self/fd/${handle.fd}`) : realpath(opened);
}
