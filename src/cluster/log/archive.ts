/**
 * Archives: a session's durable messages written as the JSONL transcript a single process writes
 * (so `agentpipe --resume <file>` works), then every Redis key of the session deleted, only if
 * nothing changed since it was read (lua/scripts.ts, DELETE_IF_UNCHANGED).
 */
import { AgentpipeError } from '../../process/errors.ts';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { PRIVATE_FILE, PRIVATE_FOLDER } from '../../process/private-files.ts';
import path from 'node:path';
import type { AgentMessage } from '../../messages/types.ts';
import { keepsInTranscript } from '../../session/transcript.ts';
import { DELETE_IF_UNCHANGED } from './lua/scripts.ts';
import type { DurableLog } from './durable.ts';
import type { LogMessage } from './entries.ts';
import { allKeys, START_ID, type SessionKeys } from './keys.ts';
import type { LogStore } from './store.ts';

/**
 * An archive that would lose something: the session runs on a worker, or input waits in its inbox. Nothing was
 * deleted.
 */
export class ArchiveRefusedError extends AgentpipeError {
  static override readonly errorName: string = 'ArchiveRefusedError';
  readonly sessionId: string;
  constructor(sessionId: string, why: string) {
    super(`session ${sessionId}: not archived: ${why}`);
    this.sessionId = sessionId;
  }
}

/** Types a log holds that are no transcript line: the control round trips, the worker's own lines. */
const NOT_TRANSCRIPT = new Set([
  'control_request',
  'control_response',
  'control_cancel_request',
  'transcript_mirror',
  'keep_alive',
  'agentpipe_session_end',
  'agentpipe_tool_start',
]);

/** The wire messages among the log's lines (what the transcript rule is about). */
const isAgentMessage = (message: LogMessage): message is AgentMessage => !NOT_TRANSCRIPT.has(message.type);

/**
 * A line of an archived transcript, as Transcript.record writes it (a timestamp on every line); undefined for what
 * transcripts leave out.
 */
export function transcriptLine(message: LogMessage): object | undefined {
  // The one rule of what a transcript keeps (no deltas, heartbeats, prompt echoes or auth_status).
  if (!isAgentMessage(message) || !keepsInTranscript(message)) return undefined;
  return 'timestamp' in message && message.timestamp ? message : { ...message, timestamp: new Date().toISOString() };
}

export class Archiver {
  readonly #store: LogStore;
  readonly #durable: DurableLog;
  constructor(store: LogStore, durable: DurableLog) {
    this.#store = store;
    this.#durable = durable;
  }

  /**
   * Writes the durable messages to `file` as a JSONL transcript, then deletes the session's keys. Written to a temp
   * file and renamed before the delete; if messages were appended meanwhile it starts over. With `token` (the caller's
   * lease) it is refused while another owner holds the lease or input waits unhandled; without it, the owner is
   * fenced. Returns the number of lines written.
   */
  async archive(sessionId: string, keys: SessionKeys, file: string, token?: string): Promise<number> {
    // An archive is a transcript: its owner's only (0600 in folders made 0700).
    await mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_FOLDER });
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      for (let attempt = 0; attempt < 10; attempt++) {
        const entries = await this.#durable.read(sessionId, keys);
        const lines = entries.map((e) => transcriptLine(e.message)).filter((l) => l !== undefined);
        await writeFile(temp, lines.map((l) => `${JSON.stringify(l)}\n`).join(''), {
          flush: true,
          mode: PRIVATE_FILE,
        });
        const last = entries.at(-1)?.id ?? START_ID;
        if (lines.length) await rename(temp, file);
        const deleted = await this.#store.script(DELETE_IF_UNCHANGED, keys, { lastId: last, token: token ?? '*' });
        if (deleted === 1) return lines.length;
        if (deleted === -1) throw new ArchiveRefusedError(sessionId, 'a worker is running it');
        if (deleted === -2) throw new ArchiveRefusedError(sessionId, 'input is waiting in its inbox');
      }
      throw new Error(`session ${sessionId}: cannot archive: messages kept being appended (release the session first)`);
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** Deletes every key of the session (an owner still running is fenced). */
  async delete(keys: SessionKeys): Promise<void> {
    await this.#store.call((c) => c.del(...allKeys(keys)));
  }
}
