/**
 * Where and when a run happened, as far as a model could see it: the working folder (in paths), the day and the
 * platform (in system prompts). A replay runs in another scene (a scratch copy, another day, another OS): its requests
 * are mapped into the recorded scene before they are compared, and the recorded answers (tool calls with absolute
 * paths) are mapped into the replay's scene before they are served.
 */
import os from 'node:os';
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** A run's surroundings. */
export interface Scene {
  /** The working folder, and its real path when that differs. */
  cwd: string[];
  /** Other folders a run's requests name: the home and a wrapped CLI's own (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR). */
  places: Record<string, string>;
  /** YYYY-MM-DD. */
  date: string;
  platform: string;
}

/** The variables whose folders a scene keeps. */
export const PLACE_VARIABLES = ['HOME', 'CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'GEMINI_CLI_HOME'] as const;

/** The scene of a run starting now in `cwd` with `env`. */
export function sceneNow(cwd: string, env: Record<string, string | undefined> = process.env, now = new Date()): Scene {
  let real = cwd;
  try {
    real = realpathSync(cwd);
  } catch {
    // a folder that does not exist (yet) has no other name
  }
  const places: Record<string, string> = {};
  // A folder of one segment (`/`, `/root`) would match too much: only deeper ones are mapped.
  for (const name of PLACE_VARIABLES) {
    const dir = env[name];
    if (dir && path.isAbsolute(dir) && dir.split('/').filter(Boolean).length >= 2) places[name] = dir;
  }
  return {
    cwd: real === cwd ? [cwd] : [cwd, real],
    places,
    date: now.toISOString().slice(0, 10),
    platform: os.platform(),
  };
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A string function for every string of a value; the value itself when no string changed. */
export function mapStrings<T>(value: T, map: (text: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return map(v);
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((item) => {
        const next = walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : v;
    }
    if (v && typeof v === 'object') {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v)) {
        const next = walk(item);
        if (next !== item) changed = true;
        out[key] = next;
      }
      return changed ? out : v;
    }
    return v;
  };
  return walk(value) as T;
}

/** One replacement in a text: `length` characters at `at` become `by`. */
export interface Edit {
  at: number;
  length: number;
  by: string;
}

/** Maps a text; `edits` says where it would change it (for texts streamed in pieces: tape/deltas.ts). */
export type PathMap = ((text: string) => string) & { edits(text: string): Edit[] };

/**
 * Replaces each folder of `pairs` (from → to) where it stands as a whole path (`/w` in `/w/a.txt` and `/w`, not in
 * `/work`), all in one pass (a folder inside another maps to its own target); undefined when nothing would change.
 */
export function pathMapper(pairs: Array<[from: string, to: string]>): PathMap | undefined {
  const targets = new Map<string, string>();
  for (const [from, to] of pairs) if (from && from !== to && !targets.has(from)) targets.set(from, to);
  if (targets.size === 0) return undefined;
  const sources = [...targets.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(?:${sources.map(escapeRegex).join('|')})(?![\\w.-])`, 'g');
  const named = (text: string) => sources.some((dir) => text.includes(dir));
  const map = (text: string) => (named(text) ? text.replace(pattern, (dir) => targets.get(dir)!) : text);
  const edits = (text: string): Edit[] =>
    named(text)
      ? [...text.matchAll(pattern)].map((m) => ({ at: m.index, length: m[0].length, by: targets.get(m[0])! }))
      : [];
  return Object.assign(map, { edits });
}

/** A folder as Claude Code (and agentpipe) name its project folder: each character but letters and digits a dash. */
const projectName = (dir: string) => dir.replace(/[^a-zA-Z0-9]/g, '-');

/**
 * The folders of scene `from` mapped to those of scene `to`: the working folder (also as a project folder's name),
 * then the named places.
 */
export function placesMapper(
  from: Pick<Scene, 'cwd' | 'places'>,
  to: Pick<Scene, 'cwd' | 'places'>,
): PathMap | undefined {
  const pairs: Array<[string, string]> = from.cwd.flatMap((dir): Array<[string, string]> => [
    [dir, to.cwd[0]!],
    [projectName(dir), projectName(to.cwd[0]!)],
  ]);
  for (const [name, dir] of Object.entries(from.places)) {
    const target = to.places[name];
    if (target) pairs.push([dir, target]);
  }
  return pathMapper(pairs);
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The ways agents write a day in their system prompts, longest first. */
export function dateForms(iso: string): string[] {
  const [year, month, day] = iso.split('-').map(Number) as [number, number, number];
  const weekday = WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()]!;
  const name = MONTHS[month - 1]!;
  return [`${weekday}, ${name} ${day}, ${year}`, `${name} ${day}, ${year}`, iso, `${month}/${day}/${year}`];
}

/**
 * Maps text of the scene `now` into the scene `then`: the folders, each written form of the day, and `Platform: x`.
 * Undefined when the two scenes look the same.
 */
export function sceneMapper(now: Scene, then: Scene): ((text: string) => string) | undefined {
  const steps: Array<(text: string) => string> = [];
  const folders = placesMapper(now, then);
  if (folders) steps.push(folders);
  if (now.date !== then.date) {
    const pairs = dateForms(now.date).map((form, i) => [form, dateForms(then.date)[i]!] as const);
    steps.push((text) => {
      for (const [from, to] of pairs) if (text.includes(from)) text = text.replaceAll(from, to);
      return text;
    });
  }
  if (now.platform !== then.platform) {
    const [from, to] = [`Platform: ${now.platform}`, `Platform: ${then.platform}`];
    steps.push((text) => (text.includes(from) ? text.replaceAll(from, to) : text));
  }
  if (steps.length === 0) return undefined;
  return (text) => steps.reduce((out, step) => step(out), text);
}
