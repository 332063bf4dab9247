/** An archived session comes back: its transcript file put back into its (empty) log by the run that takes it. */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { readTranscript } from '../../session/transcript-format.ts';
import type { LogEntry, SessionLog } from '../log/index.ts';

/** Where a session's archive is. */
export const archiveFile = (dir: string, sessionId: string): string => path.join(dir, `${sessionId}.jsonl`);

/** What a restore needs of its run. */
export interface RestoreRun {
  log: SessionLog;
  job: { sessionId: string };
  token: string;
  leaseMs: number;
  print: (line: string) => void;
}

/**
 * Puts an archived session's transcript back into its (empty) log, fenced like any append (the same uuids: clients
 * reconnect from one), so the run resumes from it. Returns the entries, or none when there is no archive.
 */
export async function restoreArchive(run: RestoreRun, archiveDir: string): Promise<LogEntry[]> {
  const { log, token } = run;
  const id = run.job.sessionId;
  const file = archiveFile(archiveDir, id);
  if (
    !(await access(file).then(
      () => true,
      () => false,
    ))
  )
    return [];
  const lines = await readTranscript(file, run.print);
  if (lines.length === 0) return [];
  const records = lines.map((line) => ({
    kind: 'd' as const,
    uuid: typeof line.uuid === 'string' ? line.uuid : '',
    json: JSON.stringify(line),
  }));
  const ids = new Set(await log.appendRecords(id, token, records, run.leaseMs));
  run.print(`agentpipe worker: session ${id}: restored ${lines.length} lines from ${file}`);
  return (await log.read(id)).filter((entry) => ids.has(entry.id));
}
