/** `agentpipe sessions`: the saved sessions of this folder (id, start, turns, cost, first prompt). */
import path from 'node:path';
import type { Command } from 'commander';

export function addSessionsCommand(program: Command, log: (line: string) => void): void {
  program
    .command('sessions')
    .description('list the saved sessions of this folder, newest first (resume one with --resume <id>)')
    .option('--json', 'print a JSON array')
    .action(async (flags: { json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<{ cwd?: string }>();
      const cwd = path.resolve(globals.cwd ?? process.cwd());
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

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
