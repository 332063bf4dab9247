/**
 * acceptEdits' file commands: as in Claude Code 2.1.332, a Bash line made only of `mkdir`, `touch`, `rm`, `rmdir`,
 * `mv`, `cp` and `sed -i` runs in acceptEdits without asking, when the check can be sure it only changes files inside
 * the working folders. It is sure only when:
 * - the line is a plain list of literal commands (no substitution, expansion, variable, glob, brace, redirection,
 *   assignment, `cd`, `~`), every command one of those programs;
 * - every option is on the program's list below (nothing that names another target or folder, copies or keeps modes
 *   and owners, makes links, backs up, reads a script file or runs anything: `-t`, `--target-directory`, `-m`,
 *   `-r` of touch, `-s`, `-l`, `-a`, `-p` of cp, `sed -f`, `e`/`w`/`r` in a sed script ...);
 * - every operand, resolved as the kernel will (links followed, `..` after them) and by realpath, is inside a working
 *   folder, is not the working folder itself (nor above it), is not protected configuration (protected-paths.ts) or
 *   under a Read deny rule, and is not a file with another hard link (a write through it lands outside);
 * - a folder that `rm -r`, `mv` or `cp -r` takes holds nothing protected or Read-denied (walked, links not followed,
 *   at most MAX_WALK entries), and where `mv` or `cp` puts a file is such a path too (`cp -r` only to a new one).
 * Anything else is not covered, and the usual check (ask) applies. The workspace sandbox stays the second wall.
 */
import { lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../process/paths.ts';
import { realPath, resolvedPath } from '../paths.ts';
import { protectedReason } from '../protected-paths.ts';
import { given, parseArgs, valuesOf, type OptionSpec, type ParsedArgs } from './options.ts';
import { analyzeShell, type SimpleCommand } from './parse.ts';
import { sedScriptReachesOut } from './sed-script.ts';

/** Claude Code 2.1.332's list of the programs acceptEdits runs (its `acceptEdits` subcommand check). */
export const ACCEPT_EDITS_PROGRAMS = ['mkdir', 'touch', 'rm', 'rmdir', 'mv', 'cp', 'sed'] as const;

/** The most entries of a folder walked before the check gives up (and asks). */
const MAX_WALK = 2000;

const SPECS: Record<string, OptionSpec> = {
  mkdir: { flags: 'pv', long: { parents: 'none', verbose: 'none' }, others: ['mode', 'context', 'help', 'version'] },
  touch: {
    flags: 'acm',
    long: { 'no-create': 'none' },
    others: ['date', 'reference', 'time', 'no-dereference', 'help', 'version'],
  },
  rm: {
    flags: 'frRdv',
    long: { force: 'none', recursive: 'none', dir: 'none', verbose: 'none' },
    others: ['interactive', 'one-file-system', 'no-preserve-root', 'preserve-root', 'help', 'version'],
  },
  rmdir: {
    flags: 'v',
    long: { 'ignore-fail-on-non-empty': 'none', verbose: 'none' },
    others: ['parents', 'help', 'version'],
  },
  mv: {
    flags: 'fnvT',
    long: { force: 'none', 'no-clobber': 'none', verbose: 'none', 'no-target-directory': 'none' },
    others: ['backup', 'interactive', 'strip-trailing-slashes', 'suffix', 'target-directory', 'update', 'context'],
  },
  cp: {
    flags: 'frRnvT',
    long: {
      force: 'none',
      recursive: 'none',
      'no-clobber': 'none',
      verbose: 'none',
      'no-target-directory': 'none',
    },
    others: [
      'archive',
      'attributes-only',
      'backup',
      'copy-contents',
      'dereference',
      'interactive',
      'link',
      'no-dereference',
      'preserve',
      'no-preserve',
      'parents',
      'reflink',
      'remove-destination',
      'sparse',
      'strip-trailing-slashes',
      'suffix',
      'symbolic-link',
      'target-directory',
      'update',
      'one-file-system',
      'context',
    ],
  },
  sed: {
    flags: 'nrEsz',
    optional: 'i',
    valued: 'e',
    long: {
      'in-place': 'optional',
      expression: 'value',
      quiet: 'none',
      silent: 'none',
      'regexp-extended': 'none',
      separate: 'none',
      'null-data': 'none',
    },
    others: ['file', 'follow-symlinks', 'line-length', 'posix', 'sandbox', 'unbuffered', 'debug', 'binary'],
  },
};

/** Where the check stands: the working folders (real paths) and the Read deny rules' test. */
export interface EditScope {
  cwd: string;
  folders: string[];
  readDenied?: (file: string) => string | undefined;
}

/** Why acceptEdits does not cover `line` (see the module comment); undefined when it runs without asking. */
export async function acceptEditsRefusal(line: string, scope: EditScope): Promise<string | undefined> {
  const analysis = await analyzeShell(line);
  if (analysis.complex.length || analysis.opaqueName) return `the line has ${analysis.complex[0] ?? 'more'}`;
  if (analysis.writes.length || analysis.reads.length) return 'the line redirects to or from a file';
  if (!analysis.commands.length) return 'the line runs nothing';
  for (const command of analysis.commands) {
    const why = commandRefusal(command, scope);
    if (why) return why;
  }
  return undefined;
}

function commandRefusal(command: SimpleCommand, scope: EditScope): string | undefined {
  const [name, ...args] = command.argv;
  if (command.assignments) return 'a command runs with a changed environment';
  if (command.globbed) return `${name} gets words a wildcard or brace expands to`;
  const spec = name === undefined ? undefined : SPECS[name];
  if (!spec) return `${name} is not one of the file commands acceptEdits runs (${ACCEPT_EDITS_PROGRAMS.join(', ')})`;
  const parsed = parseArgs(args, spec);
  if ('refused' in parsed) return `${name} ${parsed.refused.replace('known to only read', 'acceptEdits runs')}`;
  const operands = name === 'sed' ? sedFiles(parsed) : parsed.operands;
  if (typeof operands === 'string') return operands;
  if (!operands.length) return `${name} names no file`;
  for (const word of operands) {
    const why = pathRefusal(word, scope);
    if (why) return why;
  }
  return treeRefusal(name!, parsed, operands, scope);
}

/** sed's files (it must edit in place, with inline scripts that read, write and run nothing), or why not. */
function sedFiles(parsed: ParsedArgs): string[] | string {
  const inPlace = parsed.options.filter((o) => o.name === 'i' || o.name === 'in-place');
  if (!inPlace.length) return 'sed without -i changes no file';
  if (inPlace.some((o) => o.value !== undefined)) return 'sed -i with a backup suffix';
  const expressions = valuesOf(parsed, 'e', 'expression');
  const scripts = expressions.length ? expressions : parsed.operands.slice(0, 1);
  if (!scripts.length || scripts.some(sedScriptReachesOut)) return 'the sed script may read, write or run a file';
  return expressions.length ? parsed.operands : parsed.operands.slice(1);
}

const statOf = (file: string): Stats | undefined => {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
};

/** Why `file` (resolved) may not be changed: outside, a working folder or above one, protected, Read-denied. */
function placeRefusal(file: string, scope: EditScope): string | undefined {
  if (!scope.folders.some((folder) => isInside(file, folder))) return `${file} is outside the working folders`;
  if (scope.folders.some((folder) => isInside(folder, file))) return `${file} is a working folder`;
  const guarded = protectedReason(file);
  if (guarded) return `${file}: ${guarded}`;
  const rule = scope.readDenied?.(file);
  if (rule) return `${file} is protected from reading by the rule ${rule}`;
  const stats = statOf(file);
  if (stats && !stats.isDirectory() && stats.nlink > 1) return `${file} has another hard link`;
  return undefined;
}

/** Why an operand as written may not be changed (both resolutions of it are judged). */
function pathRefusal(word: string, scope: EditScope): string | undefined {
  if (word === '' || word.startsWith('~') || word.startsWith('-')) return `${JSON.stringify(word)} is not a plain path`;
  const lexical = path.resolve(scope.cwd, word);
  const dangling = danglingLink(lexical, scope.cwd);
  if (dangling) return `${dangling} is a link to nothing (a write through it lands wherever it points)`;
  for (const file of new Set([resolvedPath(scope.cwd, word), realPath(lexical), lexical])) {
    const why = placeRefusal(file, scope);
    if (why) return why;
  }
  return undefined;
}

/** A link on the way to `file` below `cwd` (or `file` itself) whose target does not exist, if there is one. */
function danglingLink(file: string, cwd: string): string | undefined {
  const parts = path.relative(cwd, file).split(path.sep);
  let at = path.isAbsolute(path.relative(cwd, file)) ? '' : cwd;
  for (const part of parts) {
    at = at ? path.join(at, part) : part;
    if (!statOf(at)?.isSymbolicLink()) continue;
    try {
      realpathSync(at);
    } catch {
      return at;
    }
  }
  return undefined;
}

/** Why a folder `rm -r`, `mv` or `cp -r` takes, or where `mv` and `cp` put things, may not be touched. */
function treeRefusal(name: string, parsed: ParsedArgs, operands: string[], scope: EditScope): string | undefined {
  const recursive = given(parsed, 'r', 'R', 'recursive');
  const moves = name === 'mv' || name === 'cp';
  const walked = name === 'mv' || (recursive && (name === 'rm' || name === 'cp'));
  const sources = moves ? operands.slice(0, -1) : operands;
  if (moves && !sources.length) return `${name} needs a source and a destination`;
  if (walked)
    for (const source of sources) {
      const why = walkRefusal(realPath(path.resolve(scope.cwd, source)), scope, moves);
      if (why) return why;
    }
  if (!moves) return undefined;
  const destination = realPath(path.resolve(scope.cwd, operands.at(-1)!));
  const into = !given(parsed, 'T', 'no-target-directory') && statOf(destination)?.isDirectory() === true;
  for (const source of sources) {
    const landing = into ? path.join(destination, path.basename(path.resolve(scope.cwd, source))) : destination;
    const why = placeRefusal(landing, scope);
    if (why) return why;
    if (name === 'cp' && recursive && statOf(landing)) return `cp -r would copy into ${landing}, which exists`;
  }
  return undefined;
}

/**
 * Why a folder's contents may not be removed, moved or copied (links are not followed; too many entries ask). A link
 * in a folder `mv` or `cp -r` takes (`moved`) comes along as a link: a later command of the line, judged on the tree
 * before the line ran, would write through it, and a relative one may lead elsewhere from its new place.
 */
function walkRefusal(root: string, scope: EditScope, moved: boolean): string | undefined {
  if (!statOf(root)?.isDirectory()) return undefined;
  const queue = [root];
  let seen = 0;
  while (queue.length) {
    const dir = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return `${dir} cannot be listed`;
    }
    for (const entry of entries) {
      if (++seen > MAX_WALK) return `${root} holds more than ${MAX_WALK} entries`;
      const file = path.join(dir, entry.name);
      const guarded = protectedReason(file);
      if (guarded) return `${root} holds ${file}: ${guarded}`;
      const rule = scope.readDenied?.(file);
      if (rule) return `${root} holds ${file}, protected from reading by the rule ${rule}`;
      if (moved && entry.isSymbolicLink()) return `${root} holds a symbolic link, ${file}, which would come along`;
      if (entry.isDirectory()) queue.push(file);
    }
  }
  return undefined;
}
