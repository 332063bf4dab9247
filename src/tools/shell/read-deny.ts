/**
 * `Read(...)` deny rules on a Bash line, in every mode (bypassPermissions included): a file the
 * line names that a rule protects is denied; what the line may read without naming it asks: a
 * computed word, a folder read whole that holds protected files (`grep -r`, `grep -R`, `cp -r .`,
 * `tar c .`), git printing the blobs of a repository that holds them, code an interpreter is given
 * (`python3 -c`, `node -e`), names read from input (`echo .env | xargs cat`), and the shell lines
 * the line hands to a shell (`bash -c 'cat .env'`, `eval '…'`, `trap '…' EXIT`), which are judged
 * as lines themselves, from every folder the outer line may be in.
 */
import path from 'node:path';
import { formatRule, pathRuleMatches, type PermissionRule } from '../permission-rules.ts';
import { expandPath, realPath, resolvedPath } from '../paths.ts';
import { isInside } from '../../process/paths.ts';
import { repositoryOf } from './git-repository.ts';
import { walkLine, type LineWalk, type Named } from './line-walk.ts';
import { analyzeShell, type ShellAnalysis } from './parse.ts';
import { inventory } from './programs.ts';
import { folderReads, gitPrints, unseenReads } from './unseen-reads.ts';

/** The rules and the session's folder (rules like `./.env` are relative to it). */
export interface ReadRules {
  readDeny: PermissionRule[];
  cwd: string;
}

/** A Read deny rule's say on a line: denied (a named file), or unsure (it may read one unseen: ask). */
export interface ReadDenyFacts {
  denied?: string;
  unsure?: string;
}

/** Nested shell lines deeper than this are not followed: unknown. */
const MAX_DEPTH = 8;

/** Every word of the line that may name a file, with the folder it is relative to. */
export function lineNamed(analysis: ShellAnalysis, walk: LineWalk, cwd: string): Named[] {
  const dirs = [...new Set([cwd, ...walk.named.map((n) => n.dir)])];
  const named = [
    ...[...analysis.reads, ...analysis.writes].flatMap((word) => dirs.map((dir) => ({ word, dir }))),
    ...walk.named,
  ];
  // `curl -d @.env`, `file://…`, `dd if=.env`: the file behind a word's prefix.
  for (const { word, dir } of named.slice()) {
    const bare = /^(@|file:\/\/|[\w.-]+=)(.+)$/.exec(word)?.[2];
    if (bare !== undefined) named.push({ word: bare, dir });
  }
  return named;
}

/**
 * The Read deny rules' verdict on a parsed line run in `start` (`walk`, `named`: its walk and
 * named words from there): see the module comment.
 */
export async function readDenyFacts(
  analysis: ShellAnalysis,
  start: string,
  walk: LineWalk,
  named: Named[],
  rules: ReadRules,
  depth = 0,
): Promise<ReadDenyFacts> {
  if (!rules.readDeny.length) return {};
  for (const { word, dir } of named) {
    const rule = rules.readDeny.find((r) => pathRuleMatches(r.specifier!, joined(dir, word), rules.cwd));
    if (rule) return { denied: `Permission to read ${word} was denied by the rule ${formatRule(rule)}` };
  }
  const plain = analysis.complex.length === 0 && !analysis.opaqueName;
  const doubt = readDenyDoubt(walk, named, plain, rules);
  if (doubt) return { unsure: doubt };
  const dirs = [...new Set([start, ...named.map((n) => n.dir)])];
  const runs = await inventory(analysis);
  if (runs.unknown) return { unsure: ask('what this line runs cannot be fully known') };
  for (const argv of runs.commands) {
    const unseen = unseenReads(argv);
    if (unseen) return { unsure: ask(unseen) };
    const folder = folderReads(argv).find((word) => dirs.some((dir) => protects(rules, resolvedPath(dir, word))));
    if (folder !== undefined) return { unsure: ask(`${argv[0]} reads ${folder} whole, which holds protected files`) };
    if (gitPrints(argv) && dirs.some((dir) => protects(rules, repositoryOf(realPath(dir)) ?? realPath(dir))))
      return { unsure: ask(`git ${argv[1] ?? ''} may print or copy the contents of files a Read deny rule protects`) };
  }
  for (const line of runs.lines) {
    const verdict = await nestedLine(line, dirs, rules, depth + 1);
    if (verdict.denied ?? verdict.unsure) return verdict;
  }
  return {};
}

/** A shell line the line hands to a shell, judged from every folder it may start in. */
async function nestedLine(line: string, dirs: string[], rules: ReadRules, depth: number): Promise<ReadDenyFacts> {
  if (depth > MAX_DEPTH) return { unsure: ask('shell lines nest too deep to follow') };
  const analysis = await analyzeShell(line);
  for (const dir of dirs) {
    const walk = walkLine(analysis, dir, true);
    const verdict = await readDenyFacts(analysis, dir, walk, lineNamed(analysis, walk, dir), rules, depth);
    if (verdict.denied ?? verdict.unsure) return verdict;
  }
  return {};
}

const ask = (why: string) => `Bash needs approval: Read deny rules are set and ${why}`;

/** With Read deny rules set, a line that may read what they protect without naming it: why it asks. */
function readDenyDoubt(walk: LineWalk, named: Named[], plain: boolean, rules: ReadRules): string | undefined {
  // A computed word (`"$PWD/.env"`, `$(…)`) names a file no one can check beforehand.
  if (!plain || walk.unexpanded || named.some(({ word }) => unresolvable(word)))
    return (
      'Bash needs approval: Read deny rules are set and a word of this line expands to file names that cannot ' +
      'be checked beforehand'
    );
  const folder = walk.roots.find(({ word, dir }) => protects(rules, resolvedPath(dir, word)));
  if (folder)
    return `Bash needs approval: ${folder.word} is read recursively and holds files a Read deny rule protects`;
  const git = walk.git.find(({ dir, content }) => {
    const repository = content ? repositoryOf(realPath(dir)) : undefined;
    return repository !== undefined && protects(rules, repository);
  });
  if (git) return 'Bash needs approval: this git command may print the contents of files a Read deny rule protects';
  return undefined;
}

/** True when a Read deny rule covers files in the folder `dir` (resolved), or `dir` itself. */
const protects = (rules: ReadRules, dir: string) => rules.readDeny.some((r) => overlaps(r.specifier!, dir, rules.cwd));

/** True when the files a path rule covers and the folder `dir` (resolved) meet: one is inside the other. */
function overlaps(specifier: string, dir: string, cwd: string): boolean {
  const pattern = expandPath(cwd, specifier.startsWith('//') ? specifier.slice(1) : specifier);
  const parts = pattern.split('/');
  const glob = parts.findIndex((p) => /[*?[{]/.test(p));
  const fixed = (glob === -1 ? parts : parts.slice(0, glob)).join('/') || '/';
  return [fixed, realPath(fixed)].some((f) => isInside(f, dir) || isInside(dir, f));
}

/**
 * `word` as a path from `dir`, not folded (`sub/../.env` stays so: the kernel follows `sub` first);
 * `~` words and absolute ones as they are.
 */
export const joined = (dir: string, word: string) =>
  word.startsWith('~') || path.isAbsolute(word) ? word : `${dir}/${word}`;

/** A word whose file cannot be known before bash expands it: `~user`, `~+`, `~-` (a home, $PWD, $OLDPWD). */
export const unresolvable = (word: string) => /^~[^/]/.test(word);
