/**
 * Decides where a session starts: fresh, or from a transcript (`resume` by id or path,
 * `continue` the latest of this folder, `forkSession` into a new id, `resumeSessionAt` a
 * message), and where it is written (`persistSession: false`: nowhere).
 */
import { UUID_PATTERN } from '../messages/ids.ts';
import path from 'node:path';
import type { MessageParam } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import type { SessionOptions } from './options.ts';
import type { Session } from './session.ts';
import { agentpipeHome, findTranscript, sessionFiles, transcriptPath } from './paths.ts';
import { Transcript } from './transcript.ts';
import { readTranscript } from './transcript-format.ts';
import { rebuild } from './transcript-rebuild.ts';

/** A resume that cannot be done (unknown session, bad message uuid). */
export class ResumeError extends Error {
  override name = 'ResumeError';
}

/** Where a session starts. */
export interface SessionStart {
  sessionId: string;
  history: MessageParam[];
  /** User message uuids already processed (not run again). */
  seenUuids: Set<string>;
  transcript?: Transcript;
  /** The transcript it was resumed from. */
  resumedFrom?: string;
}


export async function prepareSession(options: SessionOptions, log: (line: string) => void): Promise<SessionStart> {
  const cwd = options.cwd ?? process.cwd();
  const home = agentpipeHome(options.env ?? process.env);
  const persist = options.persistSession !== false;
  if (options.resumeSessionAt && !options.resume) throw new ResumeError('--resume-session-at requires --resume');
  if (options.forkSession && !options.resume && !options.continue) throw new ResumeError('--fork-session requires --resume or --continue');
  if (options.sessionId && (options.resume || options.continue) && !options.forkSession) {
    throw new ResumeError('--session-id can only be used with --continue or --resume if --fork-session is also specified');
  }

  const source = await sourceFile(options, cwd, home);
  if (!source) {
    const sessionId = options.sessionId ?? newUuid();
    return { sessionId, history: [], seenUuids: new Set(), transcript: persist ? new Transcript(transcriptPath(cwd, sessionId, home), sessionId, log) : undefined };
  }

  let lines;
  try {
    lines = await readTranscript(source, log);
  } catch (error) {
    throw new ResumeError(`cannot read the transcript ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const rebuilt = rebuild(lines, options.resumeSessionAt);
  if (!rebuilt.found) throw new ResumeError(`--resume-session-at: no message ${options.resumeSessionAt} in ${source}`);
  const oldId = rebuilt.sessionId ?? path.basename(source, '.jsonl');
  const fork = options.forkSession === true;
  const sessionId = fork ? options.sessionId ?? newUuid() : oldId;
  const start: SessionStart = { sessionId, history: rebuilt.history, seenUuids: rebuilt.seenUuids, resumedFrom: source };
  if (!persist) return start;
  start.transcript = new Transcript(fork ? transcriptPath(cwd, sessionId, home) : source, sessionId, log);
  if (fork || options.resumeSessionAt) {
    // The new file (or the new branch of this one) must rebuild on its own.
    await start.transcript.snapshot(fork ? 'fork' : 'resume_at', rebuilt.history, {
      seen_uuids: [...rebuilt.seenUuids], from: { session_id: oldId, ...(options.resumeSessionAt ? { uuid: options.resumeSessionAt } : {}) },
    });
  }
  return start;
}

async function sourceFile(options: SessionOptions, cwd: string, home: string): Promise<string | undefined> {
  if (options.resume) {
    const resume = options.resume;
    if (resume.endsWith('.jsonl')) return path.resolve(cwd, resume);
    if (!UUID_PATTERN.test(resume)) throw new ResumeError(`--resume expects a session id (a UUID) or a .jsonl file, got ${resume}`);
    const file = await findTranscript(resume, cwd, home);
    if (!file) throw new ResumeError(`No conversation found with session ID: ${resume}`);
    return file;
  }
  if (options.continue) {
    const [latest] = await sessionFiles(cwd, home);
    if (!latest) throw new ResumeError(`No conversation found to continue in ${cwd}`);
    return latest.file;
  }
  return undefined;
}

/** Gives a new session what it starts from: the restored history and the transcript to write. */
export function attachStart(session: Session, start: SessionStart): void {
  session.history.push(...start.history);
  session.transcript = start.transcript;
  session.resumed = start.resumedFrom !== undefined;
}
