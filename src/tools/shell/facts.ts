/**
 * What the permission check needs to know about one Bash line, from its parse: whether a deny
 * rule covers any command it runs (wrappers and nested shells included), whether every simple
 * command is covered by an allow rule, and whether the whole line is read-only: every program on
 * the read-only list with the words it will get (globs expanded), every file it names inside the
 * working folders and outside Read deny rules, every folder it walks clear of them, and git's
 * repository (the one the session is in, with a config that names no program).
 */
import { neverRunFrom } from '../../process/executable.ts';
import { childEnv } from '../../process/env.ts';
import { formatRule, commandRuleMatches, type PermissionRule } from '../permission-rules.ts';
import { realPath, resolvedPath } from '../paths.ts';
import { isInside } from '../../process/paths.ts';
import { repositoryOf, unsafeRepositoryConfig } from './git-repository.ts';
import { walkLine, type LineWalk, type Named } from './line-walk.ts';
import { analyzeShell, type ShellAnalysis } from './parse.ts';
import { inventory, type RunInventory } from './programs.ts';
import { readOnlyEnv } from './read-only-env.ts';
import { lineNamed, readDenyFacts, unresolvable } from './read-deny.ts';

/** The rules that bear on a Bash call. */
export interface ShellRules {
  /** Allow and deny rules whose tool part names Bash. */
  allow: PermissionRule[];
  deny: PermissionRule[];
  /** `Read(...)` deny rules: a command may not read those files either. */
  readDeny: PermissionRule[];
  /** The session's folder: relative rules (`Read(./.env)`) are anchored there. */
  cwd: string;
  /** The folder the line starts in, when not `cwd` (an earlier call's `cd`): its relative paths resolve there. */
  start?: string;
  /** The working folders (real paths): a read-only line that names a path outside them is not run without asking. */
  folders?: string[];
}

/** The parse-based facts of one line. */
export interface ShellFacts {
  /** Set when a deny rule covers the line: the reason. */
  denied?: string;
  /** Every command only reads, and nothing redirects, substitutes, expands or runs in the background. */
  readOnly: boolean;
  /** Every simple command is covered by an allow rule (or Bash is allowed as a whole). */
  allowed: boolean;
  /** Set when deny rules exist but what the line runs cannot be fully known: ask, whatever the mode. */
  unsure?: string;
  /** A path the line names outside the working folders (`cd` with no folder counts: it goes home). */
  outside?: string;
}

/** Parses `line` and judges it against the rules. */
export async function shellFacts(line: string, rules: ShellRules): Promise<ShellFacts> {
  const analysis = await analyzeShell(line);
  const specific = rules.deny.filter((r) => r.specifier !== undefined && r.specifier !== '*');
  const runs = specific.length ? await inventory(analysis) : undefined;
  const denied = commandDenial(runs, rules);
  if (denied) return denied;
  const start = rules.start ?? rules.cwd;
  const walk = walkLine(analysis, start, rules.readDeny.length > 0);
  const named = lineNamed(analysis, walk, start);
  const reading = await readDenyFacts(analysis, start, walk, named, rules);
  if (reading.denied) return { denied: reading.denied, readOnly: false, allowed: false };
  const plain = analysis.complex.length === 0 && !analysis.opaqueName;
  const unsure = unknownRuns(analysis, runs) ?? reading.unsure;
  let readOnly = plain && !unsure && analysis.writes.length === 0 && analysis.commands.length > 0 && walk.readOnly;
  if (readOnly && walk.git.length)
    readOnly = (await gitProblem(walk, start, rules.folders ?? [rules.cwd])) === undefined;
  const whole = rules.allow.some((r) => r.specifier === undefined || r.specifier === '*');
  const allowed =
    whole ||
    (plain &&
      analysis.writes.length === 0 &&
      analysis.commands.length > 0 &&
      analysis.commands.every((c) => rules.allow.some((r) => commandRuleMatches(r.specifier!, c.argv))));
  const outside = rules.folders ? outsidePath(walk, named, rules.folders) : undefined;
  return { readOnly, allowed: allowed && !unsure, ...(unsure ? { unsure } : {}), ...(outside ? { outside } : {}) };
}

/** A Bash deny rule that covers the line (`runs`: what it runs, when specific rules are set), as facts. */
function commandDenial(runs: RunInventory | undefined, rules: ShellRules): ShellFacts | undefined {
  const whole = rules.deny.find((r) => r.specifier === undefined || r.specifier === '*');
  if (whole)
    return {
      denied: `Permission to use Bash was denied by the rule ${formatRule(whole)}`,
      readOnly: false,
      allowed: false,
    };
  for (const argv of runs?.commands ?? []) {
    const rule = rules.deny.find((r) => commandRuleMatches(r.specifier!, argv));
    if (rule)
      return {
        denied:
          `Permission to use Bash was denied by the rule ${formatRule(rule)} (the line runs ` +
          `\`${argv.join(' ').slice(0, 200)}\`)`,
        readOnly: false,
        allowed: false,
      };
  }
  return undefined;
}

/** With Bash deny rules set (`runs` known), a line whose programs cannot all be named: why it asks. */
function unknownRuns(analysis: ShellAnalysis, runs: RunInventory | undefined): string | undefined {
  const plain = analysis.complex.length === 0 && !analysis.opaqueName;
  if (!runs || (plain && !runs.unknown)) return undefined;
  return (
    `Bash needs approval: deny rules are set and what this line runs cannot be fully known ` +
    `(${[...new Set(analysis.complex)].join(', ') || 'a command that runs other code'})`
  );
}

/** Why git may not run without asking here: a `cd` into another repository, or config that names a program. */
async function gitProblem(walk: LineWalk, cwd: string, folders: string[]): Promise<string | undefined> {
  // git is found outside the working folders: a `git` a command wrote there (a PATH entry naming one) never runs here.
  neverRunFrom(folders);
  const home = repositoryOf(realPath(cwd));
  const env = readOnlyEnv(childEnv());
  const checked = new Set<string>();
  for (const { dir } of walk.git) {
    const repository = repositoryOf(realPath(dir));
    if (repository !== home) return `git runs in another repository (${repository ?? dir})`;
    if (checked.has(dir)) continue;
    checked.add(dir);
    const problem = await unsafeRepositoryConfig(dir, env);
    if (problem) return problem;
  }
  return undefined;
}

/** The first path outside `folders` among the named words and walked folders, or where a `cd` leaves to. */
function outsidePath(walk: LineWalk, named: Named[], folders: string[]): string | undefined {
  if (walk.leaves !== undefined) return walk.leaves;
  for (const { word, dir } of [...named, ...walk.roots, ...walk.listed]) {
    if (unresolvable(word)) return word;
    const file = resolvedPath(dir, word);
    if (!folders.some((folder) => isInside(file, folder))) return file;
  }
  return undefined;
}

/** True when `line` only reads, run in `cwd` (used where no rules apply, e.g. to run read-only calls in parallel). */
export async function isReadOnlyShell(line: string, cwd = process.cwd()): Promise<boolean> {
  return (await shellFacts(line, { allow: [], deny: [], readDeny: [], cwd })).readOnly;
}

/**
 * True when `line` runs only programs on the read-only list with their read-only options (the
 * parse and its globs; not the paths or git's repository): such a line runs with git's configured
 * programs switched off (read-only-env.ts), whatever let it run.
 */
export async function parsesReadOnly(line: string, cwd: string): Promise<boolean> {
  const analysis = await analyzeShell(line);
  return analysis.complex.length === 0 && !analysis.opaqueName && walkLine(analysis, cwd, false).readOnly;
}
