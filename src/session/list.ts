/** Summaries of the sessions of a folder (`agentpipe sessions`), newest first. */
import path from 'node:path';
import { readdir, stat } from 'node:fs/promises';
import { agentpipeHome, jsonlFiles, sessionFiles } from './paths.ts';
import type { MessageParam } from '../messages/types.ts';
import { readTranscript } from './transcript-format.ts';

export interface SessionSummary {
  sessionId: string;
  file: string;
  /** Time of the first line (ISO), or the file's time. */
  start: string;
  /** Last change of the file (ISO). */
  updated: string;
  /** Prompts that ended with a result. */
  turns: number;
  costUsd: number;
  firstPrompt: string;
  /** The title a client gave it (`rename_session`), when one did. */
  title?: string;
  /** The session's working folder (from its system/init line), when recorded. */
  cwd?: string;
}

export async function listSessions(
  cwd: string,
  home = agentpipeHome(),
  log: (line: string) => void = () => {},
): Promise<SessionSummary[]> {
  return summarize(await sessionFiles(cwd, home), log);
}

/** Summaries of the sessions of every folder, newest first. */
export async function listAllSessions(
  home = agentpipeHome(),
  log: (line: string) => void = () => {},
): Promise<SessionSummary[]> {
  let dirs: string[];
  try {
    dirs = await readdir(path.join(home, 'projects'));
  } catch {
    return [];
  }
  const files = (await Promise.all(dirs.map((dir) => jsonlFiles(path.join(home, 'projects', dir))))).flat();
  return summarize(
    files.sort((a, b) => b.mtimeMs - a.mtimeMs),
    log,
  );
}

/** The summary of one transcript file (`agentpipe sessions <id>`); undefined when it cannot be read. */
export async function summarizeSession(
  file: string,
  log: (line: string) => void = () => {},
): Promise<SessionSummary | undefined> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
  return (await summarize([{ file, mtimeMs }], log))[0];
}

async function summarize(
  files: Array<{ file: string; mtimeMs: number }>,
  log: (line: string) => void,
): Promise<SessionSummary[]> {
  const summaries: SessionSummary[] = [];
  for (const { file, mtimeMs } of files) {
    let lines;
    try {
      lines = await readTranscript(file, log);
    } catch {
      continue; // gone or unreadable since it was listed
    }
    const prompt = lines.find((l) => l.type === 'user' && l.agentpipe_prompt);
    const results = lines.filter((l) => l.type === 'result');
    const init = lines.find((l) => l.type === 'system' && l.subtype === 'init');
    const title = lines.findLast((l) => l.type === 'custom-title');
    summaries.push({
      sessionId: lines.find((l) => typeof l.session_id === 'string')?.session_id ?? path.basename(file, '.jsonl'),
      file,
      start: lines.find((l) => typeof l.timestamp === 'string')?.timestamp ?? new Date(mtimeMs).toISOString(),
      updated: new Date(mtimeMs).toISOString(),
      turns: results.length,
      // A result's total_cost_usd is the session's running total (as in Claude Code 2.1.332): the last one says it.
      costUsd: results.findLast((r) => typeof r.total_cost_usd === 'number')?.total_cost_usd ?? 0,
      firstPrompt: prompt?.type === 'user' ? textOf(prompt.message.content) : '',
      cwd: init?.type === 'system' ? init.cwd : undefined,
      ...(title?.type === 'custom-title' ? { title: title.customTitle } : {}),
    });
  }
  return summaries;
}

function textOf(content: MessageParam['content']): string {
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : b.type === 'image' ? '[image]' : '')).join(' ');
}
