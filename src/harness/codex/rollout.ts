/**
 * Codex's session log (rollout) of a thread, read for the file changes its exec events leave out: where the log is,
 * the change one line records, and a file's text before later changes.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { isRecord, str } from '../../process/guards.ts';
import { reverseUnifiedDiff } from './shared.ts';

/** Finds codex's session log (rollout) of a thread, to read the diffs its exec events leave out. */
export function findRollout(codexHome: string, threadId: string): string | undefined {
  const walk = (dir: string, depth: number): string | undefined => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const entry of entries.sort((x, y) => y.name.localeCompare(x.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isFile() && entry.name.endsWith(`${threadId}.jsonl`)) return full;
      if (entry.isDirectory() && depth > 0) {
        const found = walk(full, depth - 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(path.join(codexHome, 'sessions'), 3);
}

/** One file's change as codex's rollout records it: an added file's text, or an update's unified diff. */
export interface RecordedChange {
  key: string;
  type: 'add' | 'update';
  text: string;
}

/** The change of `file` in one rollout line (a completed FileChange item), if it holds one. */
export function recordedChange(line: string, file: string): RecordedChange[] {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return [];
  }
  const payload = isRecord(value) && isRecord(value.payload) ? value.payload : undefined;
  const item = payload?.type === 'item_completed' && isRecord(payload.item) ? payload.item : undefined;
  const changes = item && isRecord(item.changes) ? item.changes : undefined;
  const entry = changes && isRecord(changes[file]) ? changes[file] : undefined;
  if (!entry) return [];
  // The line itself names the change: it is unique (its timestamp), where a call id may come again in a later turn.
  const key = `${line}\0${file}`;
  const add = entry.type === 'add' ? str(entry.content) : undefined;
  if (add !== undefined) return [{ key, type: 'add', text: add }];
  const diff = str(entry.unified_diff);
  return diff === undefined ? [] : [{ key, type: 'update', text: diff }];
}

/** The file before `later` changes (its text now, unwound through their diffs); undefined when one does not fit. */
export function unwind(now: string, later: RecordedChange[]): string | undefined {
  let text: string | undefined = now;
  for (const change of [...later].reverse())
    text = change.type === 'update' && text !== undefined ? reverseUnifiedDiff(text, change.text) : undefined;
  return text;
}
