/**
 * What the permission check needs to know about one Bash line, from its parse: whether a deny
 * rule covers any command it runs (wrappers and nested shells included), whether every simple
 * command is covered by an allow rule, and whether the whole line is read-only.
 */
import { formatRule, commandRuleMatches, pathRuleMatches, type PermissionRule } from '../permission-rules.ts';
import { expandPath, isInside, realPath } from '../paths.ts';
import { analyzeShell } from './parse.ts';
import { inventory } from './programs.ts';
import { isReadOnlyArgv, pathOperands } from './read-only.ts';

/** The rules that bear on a Bash call. */
export interface ShellRules {
  /** Allow and deny rules whose tool part names Bash. */
  allow: PermissionRule[];
  deny: PermissionRule[];
  /** `Read(...)` deny rules: a command may not read those files either. */
  readDeny: PermissionRule[];
  cwd: string;
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
  const runs = await inventory(analysis);
  const specific = rules.deny.filter((r) => r.specifier !== undefined && r.specifier !== '*');
  if (rules.deny.length > specific.length)
    return {
      denied: `Permission to use Bash was denied by the rule ${formatRule(rules.deny[0]!)}`,
      readOnly: false,
      allowed: false,
    };
  for (const argv of runs.commands) {
    const rule = specific.find((r) => commandRuleMatches(r.specifier!, argv));
    if (rule)
      return {
        denied:
          `Permission to use Bash was denied by the rule ${formatRule(rule)} (the line runs ` +
          `\`${argv.join(' ').slice(0, 200)}\`)`,
        readOnly: false,
        allowed: false,
      };
  }
  // Files the line names may not be ones a Read deny rule protects.
  const named = [...analysis.reads, ...analysis.writes, ...runs.commands.flatMap((argv) => pathOperands(argv))];
  for (const file of named) {
    const rule = rules.readDeny.find((r) => pathRuleMatches(r.specifier!, file, rules.cwd));
    if (rule)
      return {
        denied: `Permission to read ${file} was denied by the rule ${formatRule(rule)}`,
        readOnly: false,
        allowed: false,
      };
  }
  const plain = analysis.complex.length === 0 && !analysis.opaqueName;
  const globbed = analysis.commands.some((c) => c.globbed);
  let unsure: string | undefined;
  if (specific.length > 0 && (runs.unknown || !plain)) {
    unsure =
      `Bash needs approval: deny rules are set and what this line runs cannot be fully known ` +
      `(${[...new Set(analysis.complex)].join(', ') || 'a command that runs other code'})`;
  } else if (rules.readDeny.length > 0 && (globbed || named.some((word) => unresolvable(word, globbed)))) {
    unsure =
      'Bash needs approval: Read deny rules are set and a word of this line expands to file names that cannot ' +
      'be checked beforehand';
  }
  const readOnly =
    plain &&
    !unsure &&
    analysis.writes.length === 0 &&
    analysis.commands.length > 0 &&
    analysis.commands.every((c) => !c.assignments && isReadOnlyArgv(c.argv));
  const whole = rules.allow.some((r) => r.specifier === undefined || r.specifier === '*');
  const allowed =
    whole ||
    (plain &&
      analysis.writes.length === 0 &&
      analysis.commands.length > 0 &&
      analysis.commands.every((c) => rules.allow.some((r) => commandRuleMatches(r.specifier!, c.argv))));
  const outside = rules.folders ? outsidePath(analysis.commands, named, globbed, rules.cwd, rules.folders) : undefined;
  return { readOnly, allowed: allowed && !unsure, ...(unsure ? { unsure } : {}), ...(outside ? { outside } : {}) };
}

/**
 * A word whose files cannot be known before bash expands it: `~user`, `~+`, `~-` (another user's
 * home, $PWD, $OLDPWD), and on a line that expands words (`globbed`), a brace expansion
 * (`{a,/etc/x}`) or a glob starting with a dot, which older bash (and `sh`) let match `..`.
 */
function unresolvable(word: string, globbed: boolean): boolean {
  if (/^~[^/]/.test(word)) return true;
  return globbed && ((word.includes('{') && word.includes('}')) || /(^|\/)\.[*?[]/.test(word));
}

/** The first path outside `folders` among `named`, or `~` for a `cd` that goes home or back. */
function outsidePath(
  commands: Array<{ argv: string[] }>,
  named: string[],
  globbed: boolean,
  cwd: string,
  folders: string[],
): string | undefined {
  for (const { argv } of commands) {
    const [name, ...args] = argv;
    if ((name === 'cd' || name === 'pushd' || name === 'popd') && pathOperands(argv).length === 0 && !args.length)
      return '~';
    if ((name === 'cd' || name === 'pushd') && args.includes('-')) return '-';
    if (name === 'popd') return 'the directory stack';
  }
  for (const word of named) {
    if (unresolvable(word, globbed)) return word;
    const file = realPath(expandPath(cwd, word));
    if (!folders.some((dir) => isInside(file, dir))) return file;
  }
  return undefined;
}

/** True when `line` only reads (used where no rules apply, e.g. to run read-only calls in parallel). */
export async function isReadOnlyShell(line: string): Promise<boolean> {
  return (await shellFacts(line, { allow: [], deny: [], readDeny: [], cwd: process.cwd() })).readOnly;
}
