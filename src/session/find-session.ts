/**
 * A saved session named the short way: a unique prefix of its id (`agentpipe --resume 3f2a`, `agentpipe view 3f2a`),
 * as `git` takes a commit. A prefix that names no session, or several, is one line saying so (the candidates listed).
 */
import path from 'node:path';
import { readdir } from 'node:fs/promises';
import { UUID_PATTERN } from '../messages/ids.ts';
import { agentpipeHome, projectDir } from './paths.ts';

/** What may be the start of a session id: hex digits and dashes, at most a whole UUID's length. */
const ID_PREFIX = /^[0-9a-f][0-9a-f-]{0,35}$/i;

/** True when `ref` may name a session by (a prefix of) its id. */
export function isSessionIdPrefix(ref: string): boolean {
  return ID_PREFIX.test(ref);
}

/** A saved session found from an id or a prefix of one. */
export interface FoundSession {
  sessionId: string;
  file: string;
}

/** Candidates shown when a prefix is ambiguous (the rest counted). */
const SHOWN = 5;

/**
 * The one saved session whose id is `ref` or starts with it, in any folder (this folder's copy first); an Error whose
 * message is the one line to show when there is none or more than one.
 */
export async function findSessionByPrefix(
  ref: string,
  cwd: string,
  home = agentpipeHome(),
): Promise<FoundSession | Error> {
  const prefix = ref.toLowerCase();
  const found = new Map<string, string>();
  const here = projectDir(cwd, home);
  const projects = path.join(home, 'projects');
  let dirs: string[] = [];
  try {
    dirs = await readdir(projects);
  } catch {
    // no session saved yet
  }
  // This folder first: its copy of a session is the one taken.
  for (const dir of [here, ...dirs.map((d) => path.join(projects, d)).filter((d) => d !== here)]) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const id = name.slice(0, -'.jsonl'.length);
      if (!name.endsWith('.jsonl') || !UUID_PATTERN.test(id) || !id.toLowerCase().startsWith(prefix)) continue;
      if (!found.has(id)) found.set(id, path.join(dir, name));
    }
  }
  const match = matchIdPrefix(ref, found.keys());
  if (typeof match === 'string') return { sessionId: match, file: found.get(match)! };
  if (match.length === 0)
    return new Error(`no saved session has an id starting with ${ref} (agentpipe sessions lists this folder's)`);
  return new Error(ambiguousIdLine(ref, match));
}

/** The one of `ids` that is `ref` or starts with it (any case); else those that start with it (none, or several). */
export function matchIdPrefix(ref: string, ids: Iterable<string>): string | string[] {
  const prefix = ref.toLowerCase();
  const fitting = [...ids].filter((id) => id.toLowerCase().startsWith(prefix));
  const exact = fitting.find((id) => id.toLowerCase() === prefix);
  if (exact !== undefined) return exact;
  return fitting.length === 1 ? fitting[0]! : fitting.sort();
}

/** The line for a start of an id that fits several: the candidates (up to 5, then how many more). */
export function ambiguousIdLine(ref: string, ids: string[]): string {
  const more = ids.length > SHOWN ? ` and ${ids.length - SHOWN} more` : '';
  return `session id prefix ${ref} is ambiguous: ${ids.slice(0, SHOWN).join(', ')}${more} (give more of the id)`;
}
