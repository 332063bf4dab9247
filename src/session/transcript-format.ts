/**
 * What a transcript line holds. Most lines are the session's messages as they were emitted
 * (never `stream_event`, `tool_progress`, `auth_status` or prompt echoes), each with a `timestamp`. Two kinds are
 * transcript-only:
 * - the prompt of each turn: a `user` line with `agentpipe_prompt: true` (the wire never
 *   carries the prompt back; `agentpipe_command` marks a slash command such as /compact);
 * - `agentpipe_snapshot`: the model-facing history as it is from that point on (after a
 *   compaction, at the start of a fork or of a `--resume-session-at` branch);
 * - `custom-title`: the title a client gave the session (`rename_session`), as Claude Code writes it.
 */
import { readFile } from 'node:fs/promises';
import type { MessageParam } from '../messages/types.ts';
import type { TranscriptLine } from './transcript-schema.ts';
import { isRecord } from '../process/guards.ts';

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
  /** The W3C trace context the prompt ran under (a cluster worker taking the turn over goes on in that trace). */
  _meta?: { traceparent: string; tracestate?: string };
}

/** A history snapshot line. */
export interface SnapshotLine {
  type: 'agentpipe_snapshot';
  /** `store`: the history came from the official SDK's session store (`--session-mirror`). */
  reason: 'compact' | 'fork' | 'resume_at' | 'store';
  history: MessageParam[];
  /** User message uuids already processed (fork, resume_at). */
  seen_uuids?: string[];
  /** The session and message this one was forked or branched from. */
  from?: { session_id: string; uuid?: string };
  session_id: string;
  uuid: string;
  timestamp: string;
}

/** A title line; the last one names the session. */
export interface TitleLine {
  type: 'custom-title';
  customTitle: string;
  session_id: string;
  timestamp: string;
}

export type { TranscriptLine } from './transcript-schema.ts';

/**
 * Reads a transcript. A line that cannot be used is skipped with a warning naming its number and
 * why, and the rest is read: a line that is not JSON (a torn last line is expected after a crash),
 * a line of a type this version does not know (a newer version wrote it), and a line of a known
 * type whose shape is wrong (an edit by hand, a bad copy). The rebuild then keeps the history the
 * API needs whole (tool calls and results in pairs: see transcript-rebuild.ts).
 */
export async function readTranscript(file: string, log: (line: string) => void): Promise<TranscriptLine[]> {
  const [text, { parseTranscriptLine, KNOWN_TYPES }] = await Promise.all([
    readFile(file, 'utf8'),
    import('./transcript-schema.ts'),
  ]);
  const raw = text.split('\n');
  const lines: TranscriptLine[] = [];
  const skip = (why: string) => log(`agentpipe: warning: ${file}: ${why}; skipped`);
  raw.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const torn = i === raw.length - 1;
      return skip(torn ? 'torn last line (the writer was killed mid-line)' : `line ${i + 1} is not valid JSON`);
    }
    const type = isRecord(value) ? value.type : undefined;
    if (!KNOWN_TYPES.has(type)) return skip(`line ${i + 1} is not a known message (type ${JSON.stringify(type)})`);
    const parsed = parseTranscriptLine(value);
    if (!parsed.ok) return skip(`line ${i + 1} (${String(type)}) is not a valid transcript line: ${parsed.error}`);
    lines.push(parsed.line);
  });
  return lines;
}
