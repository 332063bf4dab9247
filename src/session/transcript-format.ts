/**
 * What a transcript line holds. Most lines are the session's messages as they were emitted
 * (never `stream_event`, `tool_progress` or replays), each with a `timestamp`. Two kinds are
 * transcript-only:
 * - the prompt of each turn: a `user` line with `agentpipe_prompt: true` (the wire never
 *   carries the prompt back; `agentpipe_command` marks a slash command such as /compact);
 * - `agentpipe_snapshot`: the model-facing history as it is from that point on (after a
 *   compaction, at the start of a fork or of a `--resume-session-at` branch).
 */
import { readFile } from 'node:fs/promises';
import type { MessageParam } from '../messages/types.ts';

/** A prompt line. */
export interface PromptLine {
  type: 'user';
  message: { role: 'user'; content: MessageParam['content'] };
  parent_tool_use_id: null;
  session_id: string;
  uuid: string;
  timestamp: string;
  agentpipe_prompt: true;
  agentpipe_command?: 'compact';
}

/** A history snapshot line. */
export interface SnapshotLine {
  type: 'agentpipe_snapshot';
  reason: 'compact' | 'fork' | 'resume_at';
  history: MessageParam[];
  /** User message uuids already processed (fork, resume_at). */
  seen_uuids?: string[];
  /** The session and message this one was forked or branched from. */
  from?: { session_id: string; uuid?: string };
  session_id: string;
  uuid: string;
  timestamp: string;
}

/** Any parsed line (wire messages are kept loosely typed: old files must stay readable). */
export type TranscriptLine = Record<string, any> & { type: string };

/** Reads a transcript; unreadable lines are skipped with a warning (a torn last line is expected after a crash). */
export async function readTranscript(file: string, log: (line: string) => void): Promise<TranscriptLine[]> {
  const text = await readFile(file, 'utf8');
  const raw = text.split('\n');
  const lines: TranscriptLine[] = [];
  raw.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const value = JSON.parse(line);
      if (typeof value === 'object' && value !== null && typeof value.type === 'string') lines.push(value);
      else throw new Error('not a message');
    } catch {
      const torn = i === raw.length - 1;
      log(`agentpipe: warning: ${file}: ${torn ? 'torn last line (the writer was killed mid-line)' : `line ${i + 1} is not a valid message`}; skipped`);
    }
  });
  return lines;
}
