/**
 * Decides where a session starts: fresh, or from a transcript (`resume` by id or path,
 * `continue` the latest of this folder, `forkSession` into a new id, `resumeSessionAt` a
 * message), and where it is written (`persistSession: false`: nowhere).
 */
import { AgentpipeError, errorCode, errorMessage } from '../process/errors.ts';
import { UUID_PATTERN } from '../messages/ids.ts';
import path from 'node:path';
import type { MessageParam } from '../messages/types.ts';
import type { TranscriptMirror } from '../messages/control.ts';
import { newUuid } from '../messages/ids.ts';
import type { SessionOptions } from './options.ts';
import type { SavedUsage } from './session-stats.ts';
import { stat } from 'node:fs/promises';
import { agentpipeHome, findTranscript, mirrorPath, sessionFiles, transcriptPath } from './paths.ts';
import { Transcript } from './transcript.ts';
import { findSessionByPrefix, isSessionIdPrefix } from './find-session.ts';
import { SessionLockedError } from './transcript-lock.ts';
import { transcriptOff } from './write-failure.ts';
import { readTranscript, type TranscriptLine } from './transcript-format.ts';
import { rebuild, type CutTurn } from './transcript-rebuild.ts';
import { copyTaskList, taskListFile } from '../tools/task-list.ts';

/** A resume that cannot be done (unknown session, bad message uuid). */
/** How a `--resume` of an unknown session id is refused (Claude Code's words). */
export const NOT_FOUND = 'No conversation found with session ID:';

export class ResumeError extends AgentpipeError {
  static override readonly errorName: string = 'ResumeError';
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
  /** The wrapped agent's own session, when a harness ran the resumed session. */
  harness?: { name: string; sessionId: string };
  /** The turn the transcript ended in the middle of, left open (`continueCutTurn`): the session goes on with it. */
  cutTurn?: CutTurn;
  /** The running totals the transcript's last result saved: a resumed or forked session goes on from them. */
  usage?: SavedUsage;
  /** Where the session keeps its task list (a session that keeps a transcript): a fork's starts as a copy. */
  taskList?: string;
}

/** `mirror` receives the transcript's lines with `sessionMirror` (the runner's output). */
export async function prepareSession(
  options: SessionOptions,
  log: (line: string) => void,
  mirror?: (line: TranscriptMirror) => Promise<void> | undefined,
): Promise<SessionStart> {
  const cwd = options.cwd ?? process.cwd();
  const home = agentpipeHome(options.env ?? process.env);
  const persist = options.persistSession !== false;
  if (options.resumeSessionAt && !options.resume) throw new ResumeError('--resume-session-at requires --resume');
  if (options.forkSession && !options.resume && !options.continue)
    throw new ResumeError('--fork-session requires --resume or --continue');
  if (options.sessionId && (options.resume || options.continue) && !options.forkSession) {
    throw new ResumeError(
      '--session-id can only be used with --continue or --resume if --fork-session is also specified',
    );
  }

  const env = options.env ?? process.env;
  // The official SDK's session store puts the stored copy where Claude Code's transcript would be.
  const stored =
    options.sessionMirror && options.resume && UUID_PATTERN.test(options.resume)
      ? await storedCopy(cwd, options.resume, env)
      : undefined;
  const source = stored ?? (await sourceFile(options, cwd, home));
  if (!source) {
    const sessionId = options.sessionId ?? newUuid();
    const transcript = persist ? openTranscript(transcriptPath(cwd, sessionId, home), sessionId, log) : undefined;
    if (options.sessionMirror && mirror) transcript?.mirrorTo(mirrorPath(cwd, sessionId, env), mirror);
    const taskList = persist ? taskListFile(home, sessionId) : undefined;
    return { sessionId, history: [], seenUuids: new Set(), transcript, ...(taskList ? { taskList } : {}) };
  }

  let lines;
  try {
    lines = await readTranscript(source, log);
  } catch (error) {
    throw new ResumeError(`cannot read the transcript ${source}: ${errorCode(error) ?? errorMessage(error)}`);
  }
  const rebuilt = rebuild(lines, options.resumeSessionAt, { keepCutTurn: options.continueCutTurn === true });
  if (!rebuilt.found) throw new ResumeError(`--resume-session-at: no message ${options.resumeSessionAt} in ${source}`);
  if (options.resumeDropsTurn) checkDroppedTurn(lines, options.resumeSessionAt, options.resumeDropsTurn);
  const oldId = rebuilt.sessionId ?? path.basename(source, '.jsonl');
  const fork = options.forkSession === true;
  const sessionId = fork ? (options.sessionId ?? newUuid()) : oldId;
  const start: SessionStart = {
    sessionId,
    history: rebuilt.history,
    seenUuids: rebuilt.seenUuids,
    // An empty transcript (a cluster session's first run) starts the session: nothing was resumed.
    ...(lines.length ? { resumedFrom: source } : {}),
    harness: rebuilt.harness,
    ...(rebuilt.cutTurn ? { cutTurn: rebuilt.cutTurn } : {}),
    ...savedUsage(lines),
  };
  if (!persist) return start;
  start.taskList = taskListFile(home, sessionId);
  if (fork) await copyTaskList(taskListFile(home, oldId), start.taskList);
  // A stored copy lives in the SDK's temporary folder: the session goes on in agentpipe's own transcript.
  start.transcript = openTranscript(fork || stored ? transcriptPath(cwd, sessionId, home) : source, sessionId, log);
  if (options.sessionMirror && mirror) start.transcript?.mirrorTo(mirrorPath(cwd, sessionId, env), mirror);
  // The same file goes on: its next line follows the conversation's last (Claude Code's `parentUuid` chain).
  if (!fork && !stored && !options.resumeSessionAt) start.transcript?.continueFrom(lastLinked(lines));
  if (start.transcript && (fork || options.resumeSessionAt || stored)) {
    // The new file (or the new branch of this one) must rebuild on its own.
    await start.transcript.snapshot(
      fork ? 'fork' : stored && !options.resumeSessionAt ? 'store' : 'resume_at',
      rebuilt.history,
      {
        seen_uuids: [...rebuilt.seenUuids],
        from: { session_id: oldId, ...(options.resumeSessionAt ? { uuid: options.resumeSessionAt } : {}) },
      },
    );
  }
  return start;
}

/**
 * The copy of a session the SDK took from its session store: `$CLAUDE_CONFIG_DIR/projects/<cwd>/<id>.jsonl`, when
 * there.
 */
async function storedCopy(
  cwd: string,
  sessionId: string,
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  if (!env.CLAUDE_CONFIG_DIR) return undefined;
  const file = mirrorPath(cwd, sessionId, env);
  // No mirror of the session: undefined says so.
  return (await stat(file).catch(() => undefined))?.isFile() ? file : undefined;
}

/** How a `--resume-drops-turn` refusal's message starts; the SDK tells clients to match on it (sdk.d.ts). */
export const DROPS_TURN_REFUSAL = 'Resume rejected by --resume-drops-turn:';

/**
 * `--resume-drops-turn`: everything after the `--resume-session-at` message must belong to the
 * turn of prompt `prompt`; otherwise the resume would drop more than the client saw, and is refused.
 */
function checkDroppedTurn(lines: TranscriptLine[], at: string | undefined, prompt: string): void {
  if (!at) throw new ResumeError('--resume-drops-turn requires --resume-session-at');
  const from = lines.findIndex((l) => l.uuid === at);
  let owner: string | undefined;
  for (const [i, line] of lines.entries()) {
    if (line.type === 'user' && line.agentpipe_prompt) owner = line.uuid;
    if (i <= from || line.type === 'custom-title') continue;
    if (owner !== prompt) {
      const what =
        line.type === 'user' && line.agentpipe_prompt
          ? `the prompt ${line.uuid}`
          : `a ${line.type} line of ${owner ? `the turn of ${owner}` : 'no turn'}`;
      throw new ResumeError(
        `${DROPS_TURN_REFUSAL} after ${at} the transcript holds ${what}, not only the turn of ${prompt}`,
      );
    }
  }
}

async function sourceFile(options: SessionOptions, cwd: string, home: string): Promise<string | undefined> {
  if (options.resume) {
    const resume = options.resume;
    if (resume.endsWith('.jsonl')) return path.resolve(cwd, resume);
    if (!UUID_PATTERN.test(resume)) {
      if (!isSessionIdPrefix(resume))
        throw new ResumeError(
          `--resume expects a session id (a UUID, or a unique start of one) or a .jsonl file, got ${resume}`,
        );
      const found = await findSessionByPrefix(resume, cwd, home);
      if (found instanceof Error) throw new ResumeError(`--resume: ${found.message}`);
      return found.file;
    }
    const file = await findTranscript(resume, cwd, home);
    if (!file) throw new ResumeError(`${NOT_FOUND} ${resume}`);
    return file;
  }
  if (options.continue) {
    // Nothing to continue: a new session, as Claude Code 2.1.332 starts one.
    const [latest] = await sessionFiles(cwd, home);
    return latest?.file;
  }
  return undefined;
}

/**
 * The session's transcript, or none when it cannot be written (a read-only or full home, a file in
 * the way): said in one warning, and the session goes on. A session another process holds is refused.
 */
function openTranscript(file: string, sessionId: string, log: (line: string) => void): Transcript | undefined {
  try {
    return new Transcript(file, sessionId, log);
  } catch (error) {
    if (SessionLockedError.isInstance(error)) throw error;
    log(transcriptOff(file, error));
    return undefined;
  }
}

/** The uuid of the last main-thread user or assistant line (the one a continued transcript links its next to). */
function lastLinked(lines: TranscriptLine[]): string | null {
  const last = lines.findLast(
    (l) => (l.type === 'user' || l.type === 'assistant') && !l.parent_tool_use_id && typeof l.uuid === 'string',
  );
  return typeof last?.uuid === 'string' ? last.uuid : null;
}

/** The running totals of the transcript's last result that has them, as `SessionStart.usage`. */
function savedUsage(lines: TranscriptLine[]): { usage?: SavedUsage } {
  const last = lines.findLast((l) => l.type === 'result' && l.modelUsage !== undefined);
  if (last?.type !== 'result' || !last.modelUsage) return {};
  return { usage: { modelUsage: last.modelUsage, totalCostUsd: last.total_cost_usd ?? 0 } };
}
