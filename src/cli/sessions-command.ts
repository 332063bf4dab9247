/**
 * `agentpipe sessions`: the saved sessions of this folder (id, start, turns, cost, first prompt).
 * `agentpipe sessions <id>`: the one session that id, or a unique start of it, names (any folder's, this one's
 * first), as --resume finds it.
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { SessionSummary } from '../session/list.ts';
import { UsageError, reportUsageError } from './options.ts';

export function addSessionsCommand(program: Command, log: (line: string) => void): void {
  program
    .command('sessions')
    .argument('[id]', 'show only the session with this id or unique start of one (as --resume takes it)')
    .description('list the saved sessions of this folder, newest first (resume one with --resume <id>)')
    .option('--json', 'print a JSON array')
    .action(async (id: string | undefined, flags: { json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<{ cwd?: string }>();
      const cwd = path.resolve(globals.cwd ?? process.cwd());
      let sessions: SessionSummary[];
      try {
        sessions = id === undefined ? await thisFolders(cwd, log) : await named(id, cwd, log);
      } catch (error) {
        reportUsageError(error, log);
        return;
      }
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
        return;
      }
      if (sessions.length === 0) {
        process.stdout.write(`No sessions saved for ${cwd}\n`);
        return;
      }
      const rows = sessions.map((s) => [
        s.sessionId,
        s.start.slice(0, 19).replace('T', ' '),
        String(s.turns),
        `$${s.costUsd.toFixed(4)}`,
        oneLine(s.title ?? s.firstPrompt, 60),
      ]);
      const header = ['SESSION ID', 'STARTED (UTC)', 'TURNS', 'COST', 'TITLE OR FIRST PROMPT'];
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
      for (const row of [header, ...rows])
        process.stdout.write(
          `${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')}\n`,
        );
    });
}

async function thisFolders(cwd: string, log: (line: string) => void): Promise<SessionSummary[]> {
  const { listSessions } = await import('../session/list.ts');
  return listSessions(cwd, undefined, log);
}

/** The one session `id` names, found as --resume finds it; a UsageError (one line) when it names none or several. */
async function named(id: string, cwd: string, log: (line: string) => void): Promise<SessionSummary[]> {
  const { findSessionByPrefix, isSessionIdPrefix } = await import('../session/find-session.ts');
  if (!isSessionIdPrefix(id)) throw new UsageError(`sessions expects a session id or a unique start of one, got ${id}`);
  const found = await findSessionByPrefix(id, cwd);
  if (found instanceof Error) throw new UsageError(found.message);
  const { summarizeSession } = await import('../session/list.ts');
  const summary = await summarizeSession(found.file, log);
  if (!summary) throw new UsageError(`session ${found.sessionId}: its transcript is gone or unreadable`);
  return [summary];
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
