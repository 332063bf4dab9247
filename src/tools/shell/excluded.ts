/**
 * `sandbox.excludedCommands`: the Bash lines that may run outside the OS sandbox, as Claude Code
 * decides it. An entry is a command pattern in Bash rule syntax (`docker:*`, `npm run *`; a
 * `Bash(...)` wrapper is accepted), or a plain command (`docker`, `git push`), which covers that
 * command with any arguments. A line is excluded only when every simple command in it matches an
 * entry and it has no `cd`, no substitution or expansion, no assignment, and no redirection but a
 * descriptor duplication (`2>&1`). agentpipe adds a stricter guard against the parser disagreeing
 * with bash (issue 26): the line must be printable ASCII without backslashes or backquotes, since
 * a line that runs outside the sandbox has no second wall behind the parse.
 */
import { commandRuleMatches } from '../permission-rules.ts';
import { analyzeShell } from './parse.ts';

/** Commands whose `cd`-like effect makes what follows run somewhere the check did not look. */
const MOVES = new Set(['cd', 'pushd', 'popd']);

/** True when `entry` covers the command `argv`. */
export function excludedEntryMatches(entry: string, argv: string[]): boolean {
  const spec = entry
    .trim()
    .replace(/^Bash\((.*)\)$/s, '$1')
    .trim();
  if (!spec) return false;
  if (spec.includes('*')) return commandRuleMatches(spec, argv);
  const words = spec.split(/\s+/);
  return words.every((word, i) => argv[i] === word);
}

/** True when the Bash `line` runs outside the sandbox under `entries` (see the module comment). */
export async function isExcludedLine(line: string, entries: readonly string[]): Promise<boolean> {
  if (!entries.length || !/^[\x20-\x7e]+$/.test(line) || /[\\`]/.test(line)) return false;
  // Only descriptor duplications may redirect: any other < or > (even quoted) keeps it sandboxed.
  if (/[<>]/.test(line.replace(/\d*[<>]&(\d+|-)/g, ''))) return false;
  const analysis = await analyzeShell(line);
  if (analysis.complex.length || analysis.opaqueName || analysis.writes.length || analysis.reads.length) return false;
  if (!analysis.commands.length) return false;
  return analysis.commands.every(
    (c) =>
      !c.assignments &&
      !c.globbed &&
      !MOVES.has(c.argv[0]!) &&
      entries.some((entry) => excludedEntryMatches(entry, c.argv)),
  );
}
