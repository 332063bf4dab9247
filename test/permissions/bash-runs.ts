/**
 * What bash really runs for a list of lines, for tests that hold a reading of a line against
 * bash's own.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { scratchDir } from '../helpers/temp.ts';

/**
 * What bash runs for each of `lines`: the set of simple commands (their words), sorted. One bash
 * with no PATH runs them all: every program is "not found", and bash hands its words to
 * command_not_found_handle, which writes them to fd 3 (a program named with a `/` is run as a
 * path instead, and `%1` is a job: neither shows). The lines run twice, every command succeeding
 * and then failing, so each side of `&&` and `||` runs in one of the two.
 */
export function bashRuns(lines: string[]): string[] {
  const seen: Array<Set<string>> = lines.map(() => new Set());
  // A folder of its own, where a file of every one-letter name exists: `p<q` reads q, `p>q` writes it.
  const folder = scratchDir('agentpipe-bash-runs-');
  for (const letter of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')
    writeFileSync(path.join(folder, letter), '');
  for (const status of [0, 1]) {
    // One printf per command, so the words of commands that run at once (a pipeline) do not mix.
    // Each line is read by `eval` (bash's own parser, as for -c): one that bash refuses runs nothing.
    const script = [
      `command_not_found_handle() { printf '%s\\0' "$@" $'\\1' >&3; return ${status}; }`,
      `i=0; while IFS= read -r -d '' line; do`,
      `  printf '%s\\0' __line "$i" $'\\1' >&3; eval -- "$line"; i=$((i + 1))`,
      'done',
    ].join('\n');
    const run = spawnSync('/bin/bash', ['-c', script], {
      cwd: folder,
      env: { PATH: '/nonexistent' },
      input: lines.map((l) => `${l}\0`).join(''),
      stdio: ['pipe', 'ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    let current = -1;
    for (const record of String(run.output[3]).split('\u0001\u0000').filter(Boolean)) {
      const words = record.split('\u0000').slice(0, -1);
      if (words[0] === '__line') current = Number(words[1]);
      else seen[current]?.add(JSON.stringify(words));
    }
  }
  return seen.map((commands) => JSON.stringify([...commands].sort()));
}

/** True when bash refuses `line` as a syntax error (and so runs nothing of it). */
export function refusedByBash(line: string): boolean {
  return (
    spawnSync('/bin/bash', ['-n', '-c', line], { stdio: 'ignore', cwd: scratchDir('agentpipe-bash-n-') }).status !== 0
  );
}
