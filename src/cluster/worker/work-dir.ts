/**
 * A worker's own folder, `$TMPDIR/agentpipe-worker-<pid>-<random>`: the transcripts its runs
 * resume from, and a record of the tool process groups running now (`groups/<pgid>`, holding the
 * group leader's start time). A worker killed with SIGKILL leaves both behind, and its tools
 * running (issue 28 B8); the next worker on the machine stops those groups and removes the folder
 * when it starts. A folder is a dead worker's when no process with its pid and start time runs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTimeOf } from '../../process/alive.ts';
import { signalGroup, watchGroups } from '../../process/run.ts';

const PREFIX = 'agentpipe-worker-';
const FOLDER = /^agentpipe-worker-(\d+)-/;

/** True while the process that wrote a record (`<pid> <start time>`) runs. */
function runs(record: string): boolean {
  const [pid, started] = record.trim().split(' ');
  const now = startTimeOf(Number(pid));
  return now !== undefined && (started === undefined || now === started);
}

/** Stops the tool groups a dead worker left running and removes its folder; the folders cleaned. */
export function cleanDeadWorkers(tmp: string, print: (line: string) => void): string[] {
  const cleaned: string[] = [];
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch {
    return cleaned;
  }
  for (const name of names) {
    const match = FOLDER.exec(name);
    if (!match) continue;
    const dir = path.join(tmp, name);
    let owner: string;
    try {
      owner = readFileSync(path.join(dir, 'owner'), 'utf8');
    } catch {
      owner = match[1]!; // a folder of an older version: its pid only
    }
    if (runs(owner)) continue;
    const stopped = stopGroups(path.join(dir, 'groups'));
    rmSync(dir, { recursive: true, force: true });
    cleaned.push(dir);
    print(
      `agentpipe worker: removed ${dir}, left by a worker that is gone` +
        (stopped ? `; stopped ${stopped} tool process group(s) it left running` : ''),
    );
  }
  return cleaned;
}

/** SIGKILL to each recorded group still there (a leader that runs must be the recorded one); how many. */
function stopGroups(dir: string): number {
  let stopped = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const pgid = Number(name);
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    let started = '';
    try {
      started = readFileSync(path.join(dir, name), 'utf8').trim();
    } catch {
      continue;
    }
    const leader = startTimeOf(pgid);
    // The leader runs: only the recorded process (a pid in use is never a new group's id while its group lives).
    if (leader !== undefined && leader !== started) continue;
    if (signalGroup(pgid, 'SIGKILL')) stopped++;
  }
  return stopped;
}

export class WorkDir {
  readonly path: string;
  readonly #groups: string;

  private constructor(dir: string) {
    this.path = dir;
    this.#groups = path.join(dir, 'groups');
  }

  /** Cleans what dead workers left, then makes this worker's folder and records the groups its tools start. */
  static create(print: (line: string) => void, tmp = os.tmpdir()): WorkDir {
    cleanDeadWorkers(tmp, print);
    const dir = mkdtempSync(path.join(tmp, `${PREFIX}${process.pid}-`));
    writeFileSync(path.join(dir, 'owner'), `${process.pid} ${startTimeOf(process.pid) ?? ''}`);
    const work = new WorkDir(dir);
    mkdirSync(work.#groups);
    watchGroups({
      started: (pid) => {
        try {
          writeFileSync(path.join(work.#groups, String(pid)), startTimeOf(pid) ?? '');
        } catch {
          // The record is a safety net for a SIGKILL of the worker; a failure to write it costs nothing else.
        }
      },
      ended: (pid) => {
        try {
          unlinkSync(path.join(work.#groups, String(pid)));
        } catch {
          // Gone already.
        }
      },
    });
    return work;
  }

  /** Removes the folder (the worker is closing). */
  close(): void {
    watchGroups(undefined);
    rmSync(this.path, { recursive: true, force: true });
  }
}
