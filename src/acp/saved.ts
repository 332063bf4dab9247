/**
 * Saved sessions for `session/list`, `session/load` and `session/resume`: the transcripts of
 * `$AGENTPIPE_HOME/projects/<folder>/`, whichever entry point wrote them (the ACP session id is
 * the session id of the transcript).
 */
import { UUID_PATTERN } from '../messages/ids.ts';
import { stat } from 'node:fs/promises';
import { listAllSessions, listSessions } from '../session/list.ts';
import { agentpipeHome, transcriptPath } from '../session/paths.ts';
import { readTranscript } from '../session/transcript-format.ts';
import { isPromptEcho } from '../messages/user.ts';
import type { AgentMessage } from '../messages/types.ts';
import { acpContentOf } from './convert.ts';
import { transcriptLog } from './replay.ts';

/** A saved session: its transcript, and its stream (prompt echoes and messages) to replay. */
export interface SavedSession {
  file: string;
  log: AgentMessage[];
  title?: string;
  updatedAt: string;
}

/** ACP's SessionInfo. */
export interface SessionInfo {
  sessionId: string;
  cwd: string;
  title: string | null;
  updatedAt: string;
}

/** The saved session `sessionId` of the folder `cwd`; undefined when there is none. */
export async function readSavedSession(
  sessionId: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<SavedSession | undefined> {
  if (!UUID_PATTERN.test(sessionId)) return undefined;
  const file = transcriptPath(cwd, sessionId, agentpipeHome(env));
  let updatedAt;
  try {
    updatedAt = (await stat(file)).mtime.toISOString();
  } catch {
    return undefined;
  }
  const entries = transcriptLog(await readTranscript(file, log));
  const first = entries.find(isPromptEcho);
  return { file, log: entries, title: first ? titleOf(acpContentOf(first.message.content)) : undefined, updatedAt };
}

/** Saved sessions of `cwd` (of every folder without one), newest first. */
export async function savedSessions(
  cwd: string | undefined,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<SessionInfo[]> {
  const home = agentpipeHome(env);
  const summaries = cwd ? await listSessions(cwd, home, log) : await listAllSessions(home, log);
  return summaries.flatMap((s) => {
    const where = cwd ?? s.cwd;
    return where
      ? [
          {
            sessionId: s.sessionId,
            cwd: where,
            title: s.title ?? (s.firstPrompt ? oneLine(s.firstPrompt) : null),
            updatedAt: s.updated,
          },
        ]
      : [];
  });
}

/** A session's title: the start of its first prompt's text. */
export function titleOf(blocks: unknown[]): string | undefined {
  const text = (blocks as Array<{ type?: string; text?: string }>).find((b) => b?.type === 'text' && b.text)?.text;
  return text ? oneLine(text) : undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 80);
}
