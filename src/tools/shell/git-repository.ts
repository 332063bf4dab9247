/**
 * What git would read before a read-only git command runs without asking: which repository it
 * finds from a folder (a `cd` into another repository, an embedded bare one included, asks), and
 * whether that repository's own configuration (its `config` and `config.worktree`, with what they
 * include) holds only keys known not to name a program or a file elsewhere. The repository's
 * config is whatever its author (or a tool, or an earlier command) wrote; the user's own config
 * (global, system) is theirs and is trusted, as when they run git themselves. A key not on the
 * list (a textconv or filter driver, `diff.external`, `core.worktree`, an include …) asks, and the
 * reason names it.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { gitOutside } from '../../sandbox/git-outside.ts';

const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
const exists = (p: string) => statSync(p, { throwIfNoEntry: false }) !== undefined;

/**
 * The repository git finds from `dir` (resolved): the nearest folder at or above it that holds
 * `.git`, or that is a bare repository itself (HEAD, objects/ and refs/); undefined when none.
 */
export function repositoryOf(dir: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    if (exists(path.join(at, '.git'))) return at;
    if (exists(path.join(at, 'HEAD')) && isDir(path.join(at, 'objects')) && isDir(path.join(at, 'refs'))) return at;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * Repository-config keys that name no program and no file elsewhere, as `section.name` or
 * `section.*.name` patterns (lowercase; `*` is one subsection). Keys the overrides of
 * read-only-env.ts switch off (core.fsmonitor, core.hooksPath, core.pager …) are harmless here.
 */
const SAFE_KEYS: RegExp[] = [
  keys(
    'core',
    'repositoryformatversion filemode bare logallrefupdates ignorecase precomposeunicode symlinks autocrlf eol ' +
      'safecrlf quotepath abbrev compression loosecompression sparsecheckout sparsecheckoutcone untrackedcache ' +
      'splitindex commitgraph multipackindex checkstat trustctime preloadindex fscache longpaths hidedotfiles ' +
      'warnambiguousrefs hookspath fsmonitor fsmonitorhookversion pager editor sshcommand gitproxy ' +
      'sharedrepository whitespace deltabasecachelimit bigfilethreshold packedgitlimit packedgitwindowsize ' +
      'commentchar commentstring notesref filesreflocktimeout packedrefstimeout checkroundtripencoding',
  ),
  keys(
    'remote.*',
    'url pushurl fetch push tagopt prune prunetags mirror promisor partialclonefilter skipdefaultupdate ' +
      'skipfetchall gh-resolved',
  ),
  keys('remote', 'pushdefault'),
  /^branch\.[^.]+\.[a-z0-9-]+$/,
  keys('branch', 'autosetupmerge autosetuprebase sort'),
  keys('submodule.*', 'url active branch ignore shallow fetchrecursesubmodules'),
  keys(
    'diff',
    'algorithm renames renamelimit mnemonicprefix noprefix colormoved colormovedws context interhunkcontext ' +
      'indentheuristic ignoresubmodules statgraphwidth statnamewidth wserrorhighlight relative suppressblankempty ' +
      'submodule dirstat srcprefix dstprefix autorefreshindex tool guitool',
  ),
  keys('diff.*', 'binary xfuncname funcname wordregex cachetextconv'),
  keys('merge', 'ff conflictstyle renames renamelimit log verbosity autostash tool guitool defaulttoupstream'),
  keys('lfs', 'repositoryformatversion url pushurl locksverify fetchinclude fetchexclude'),
  keys('lfs.*', 'access locksverify'),
  // Sections the read-only commands never take a program or a file from. Not `pretty.*` nor
  // `format.pretty`: a format of the repository's could hold %G, which runs gpg on `git log`.
  new RegExp(
    `^(${alternation(
      'user init pull push fetch rebase status color column advice help i18n gui pack gc maintenance rerere index ' +
        'extensions feature log format alias credential http blame commit tag versionsort notes stash ' +
        'worktree am apply interactive add clean checkout switch reset pager difftool mergetool receive ' +
        'uploadpack safe gitgui web instaweb sendemail imap transfer protocol',
    )})\\.(?!pretty$).+$`,
  ),
];

/** `section.name` patterns for each of `names` (`section` may hold `*`: one subsection). */
function keys(section: string, names: string): RegExp {
  return new RegExp(`^${section.replace('.', '\\.').replace('*', '[^.]+')}\\.(${alternation(names)})$`);
}

/** Words as a regex alternation. */
function alternation(words: string): string {
  return words.trim().split(/\s+/).join('|');
}

/** Scopes that belong to the repository (the rest, system, global and command, are the user's). */
const REPOSITORY_SCOPES = new Set(['local', 'worktree']);

/** A key of the repository's config not known to be harmless, with what it says; undefined when there is none. */
export async function unsafeRepositoryConfig(dir: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  // The repository's own programs do not run (git-outside.ts); its `-c` overrides are listed as the command's scope.
  const run = await gitOutside(dir, env, ['config', '--list', '--show-scope', '--includes', '-z'], 1 << 20);
  // No git: the command fails as it would anyway.
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return undefined;
  if (run.error || run.code !== 0 || run.dropped.stdout > 0)
    return `the repository's configuration could not be read (${(run.stderr || run.error?.message || '').trim()})`;
  const fields = run.stdout.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (!REPOSITORY_SCOPES.has(fields[i]!)) continue;
    const entry = fields[i + 1]!;
    const newline = entry.indexOf('\n');
    const key = newline === -1 ? entry : entry.slice(0, newline);
    if (!SAFE_KEYS.some((pattern) => pattern.test(lowerCased(key))))
      return `the repository's configuration sets ${key}${newline === -1 ? '' : ` = ${entry.slice(newline + 1)}`}`;
  }
  return undefined;
}

/** A key with its section and name lowercased (the subsection keeps its case, as git keeps it), dots in it as `*`. */
function lowerCased(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === last) return key.toLowerCase();
  const subsection = key.slice(first + 1, last).replaceAll('.', '*');
  return `${key.slice(0, first).toLowerCase()}.${subsection}.${key.slice(last + 1).toLowerCase()}`;
}
