/**
 * A saved stream: our transcript (~/.agentpipe/projects/…/<id>.jsonl) or any stream-json output,
 * ours or Claude Code's. One JSON object per line; other lines (logs, blank lines, a torn last
 * line) are skipped and counted. Transport lines (keep_alive, control_*) are left out.
 */
import { errorCode, errorMessage } from '../process/errors.ts';
import { readFile } from 'node:fs/promises';
import { isRecord } from '../process/guards.ts';

const SKIP_TYPES = new Set([
  'keep_alive',
  'control_request',
  'control_response',
  'control_cancel_request',
  'agentpipe_snapshot',
]);

export interface SavedStream {
  messages: Array<Record<string, unknown>>;
  skipped: number;
}

export function parseStream(text: string): SavedStream {
  const messages: Array<Record<string, unknown>> = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      skipped++;
      continue;
    }
    if (!isRecord(value) || typeof value.type !== 'string') {
      skipped++;
      continue;
    }
    if (!SKIP_TYPES.has(value.type)) messages.push(value);
  }
  return { messages, skipped };
}

export async function readStream(file: string): Promise<SavedStream> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    throw new Error(code === 'ENOENT' ? `${file}: no such file` : `${file}: ${errorMessage(error)}`);
  }
  return parseStream(text);
}
