/**
 * `agentpipe sessions`: the saved sessions of this folder (id, start, turns, cost, first prompt); `sessions <id>`: one
 * session, named by its id or a unique prefix of it (in any folder), as `--resume` and `view` take it.
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { SessionSummary } from '../session/list.ts';

export function addSessionsCommand(program: Command, log: (line: string) => void): void {
  program
    .command('sessions')
    .argument('[id]', 'one session: its id or a unique prefix of it')
    .description('list the saved sessions of this folder, newest first, or show one (resume one with --resume <id>)')
    .option('--json', 'print JSON (an array, or the one session)')
    .action(async (id: string | undefined, flags: { json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<{ cwd?: string }>();
      const cwd = path.resolve(globals.cwd ?? process.cwd());
      if (id !== undefined) return showSession(id, cwd, flags.json === true, log);
      const { listSessions } = await import('../session/list.ts');
      const sessions = await listSessions(cwd, undefined, log);
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

/** One session by id or unique prefix; none or several found is one line on stderr and exit code 1. */
async function showSession(ref: string, cwd: string, json: boolean, log: (line: string) => void): Promise<void> {
  const { findSessionByPrefix, isSessionIdPrefix } = await import('../session/find-session.ts');
  const found = isSessionIdPrefix(ref)
    ? await findSessionByPrefix(ref, cwd)
    : new Error(`${ref} is not a session id or the start of one (agentpipe sessions lists this folder's)`);
  const { summarizeSession } = await import('../session/list.ts');
  const summary = found instanceof Error ? undefined : await summarizeSession(found.file, log);
  if (!summary) {
    log(`agentpipe: error: ${found instanceof Error ? found.message : `the transcript of ${ref} cannot be read`}`);
    process.exitCode = 1;
    return;
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return;
  }
  process.stdout.write(details(summary));
}

function details(s: SessionSummary): string {
  const rows: Array<[string, string | undefined]> = [
    ['session', s.sessionId],
    ['folder', s.cwd],
    ['started', `${s.start.slice(0, 19).replace('T', ' ')} UTC`],
    ['updated', `${s.updated.slice(0, 19).replace('T', ' ')} UTC`],
    ['turns', String(s.turns)],
    ['cost', `$${s.costUsd.toFixed(4)}`],
    ['title', s.title],
    ['first prompt', s.firstPrompt ? oneLine(s.firstPrompt, 200) : undefined],
    ['transcript', s.file],
    ['resume', `agentpipe --resume ${s.sessionId}`],
  ];
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([name, value]) => `${name.padEnd(13)}${value}\n`)
    .join('');
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
