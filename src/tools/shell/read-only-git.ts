/**
 * The read-only uses of git (2.39): a few subcommands, each with the options that only read,
 * matched as whole names (git's parsers take some abbreviations; an allow list of whole names
 * never meets one). Not among them: options before the subcommand (`-c`, `-C`, `--git-dir`,
 * `--exec-path`), options that write (`--output`), run a configured program (`--ext-diff`,
 * `--textconv`, `--show-signature` and `%G` format placeholders, which run gpg) or walk into
 * submodules (whose configuration is not checked). What the repository's own configuration
 * could run is checked before the command runs (git-repository.ts).
 */
import { given, valuesOf, type OptionSpec, type ParsedArgs } from './options.ts';
import { names, type Program, type ReadOnlyVerdict } from './program.ts';
import { parseArgs } from './options.ts';

const DIFF_NONE =
  'patch no-patch raw patch-with-raw indent-heuristic no-indent-heuristic minimal patience histogram ' +
  'compact-summary numstat shortstat cumulative summary patch-with-stat name-only name-status no-color ' +
  'no-color-moved no-color-moved-ws no-renames rename-empty no-rename-empty check full-index binary ' +
  'find-copies-harder irreversible-delete pickaxe-all pickaxe-regex no-relative text ignore-cr-at-eol ' +
  'ignore-space-at-eol ignore-space-change ignore-all-space ignore-blank-lines function-context exit-code quiet ' +
  'no-ext-diff no-textconv no-prefix default-prefix ita-invisible-in-index ita-visible-in-index cc ' +
  'combined-all-paths no-diff-merges';
const DIFF_VALUE =
  'unified output-indicator-new output-indicator-old output-indicator-context anchored diff-algorithm ' +
  'color-moved-ws word-diff-regex ws-error-highlight diff-filter find-object skip-to rotate-to ' +
  'ignore-matching-lines inter-hunk-context src-prefix dst-prefix line-prefix diff-merges';
const DIFF_OPTIONAL =
  'stat dirstat dirstat-by-file submodule color color-moved word-diff color-words abbrev break-rewrites ' +
  'find-renames find-copies relative ignore-submodules';
const REV_NONE =
  'all-match invert-grep regexp-ignore-case basic-regexp extended-regexp fixed-strings perl-regexp remove-empty ' +
  'merges no-merges no-min-parents no-max-parents first-parent exclude-first-parent-only not all reflog ' +
  'single-worktree ignore-missing cherry-mark cherry-pick left-only right-only cherry walk-reflogs merge boundary ' +
  'simplify-by-decoration show-pulls full-history dense sparse simplify-merges date-order author-date-order ' +
  'topo-order reverse do-walk abbrev-commit no-abbrev-commit oneline no-expand-tabs no-notes standard-notes ' +
  'no-standard-notes relative-date parents children left-right graph follow no-decorate clear-decorations ' +
  'source use-mailmap mailmap no-mailmap no-use-mailmap full-diff log-size';
const REV_VALUE =
  'max-count skip since after until before max-age min-age author committer grep-reflog grep min-parents ' +
  'max-parents glob exclude exclude-hidden format encoding date decorate-refs decorate-refs-exclude';
const REV_OPTIONAL =
  'branches tags remotes ancestry-path no-walk pretty expand-tabs notes show-notes show-linear-break decorate';

/** The options of log, show and diff (and shortlog's revision options). */
const LOG: OptionSpec = {
  flags: 'pusRabwWDmcziEFPgt0123',
  valued: 'USGOInL',
  optional: 'MCBlX',
  numeric: true,
  exact: true,
  long: {
    ...names(`${DIFF_NONE} ${REV_NONE} cached staged no-index merge-base base ours theirs`, 'none'),
    ...names(`${DIFF_VALUE} ${REV_VALUE}`, 'value'),
    ...names(`${DIFF_OPTIONAL} ${REV_OPTIONAL}`, 'optional'),
  },
};

/** Options whose values git checks further: formats (`%G` runs gpg) and submodule walks. */
function refuseValues(parsed: ParsedArgs): string | undefined {
  if (valuesOf(parsed, 'format', 'pretty').some((v) => v.includes('%G')))
    return 'a %G format placeholder verifies signatures with gpg';
  if (valuesOf(parsed, 'submodule').some((v) => v !== 'short'))
    return '--submodule other than short reads into submodules';
  if (given(parsed, 'submodule') && !valuesOf(parsed, 'submodule').length) return '--submodule reads into submodules';
  if (valuesOf(parsed, 'ignore-submodules').some((v) => v !== 'all' && v !== 'dirty'))
    return '--ignore-submodules other than all or dirty walks into submodules';
  return undefined;
}

/** Every word of a git command that may name a file: operands, option values, the path of `rev:path` (`-L 1,2:f`). */
function gitPaths(parsed: ParsedArgs): string[] {
  const out = [...parsed.operands, ...parsed.options.flatMap((o) => (o.value === undefined ? [] : [o.value]))];
  for (const word of out.slice()) {
    const colon = word.indexOf(':');
    if (colon !== -1 && colon < word.length - 1) out.push(word.slice(colon + 1).replace(/^\d:/, ''));
  }
  return out;
}

/** A subcommand with `spec`; `content` says whether it may print the contents of files. */
function sub(
  spec: OptionSpec,
  content: (parsed: ParsedArgs) => boolean,
  extra?: (p: ParsedArgs) => string | undefined,
) {
  return (args: string[]): ReadOnlyVerdict => {
    const parsed = parseArgs(args, spec);
    if ('refused' in parsed) return { refused: `git ${parsed.refused}` };
    const refused = refuseValues(parsed) ?? extra?.(parsed);
    if (refused) return { refused };
    return { paths: gitPaths(parsed), roots: [], git: { content: content(parsed) } };
  };
}

/**
 * Options that make log show file contents: patches (`--binary` implies one), the lines `--check`
 * finds fault with, and the pickaxe searches (`-S`, `-G`: which commits match a guess at a line is
 * an oracle on the contents).
 */
const PATCH = [
  'p',
  'u',
  'patch',
  'cc',
  'c',
  'm',
  'word-diff',
  'color-words',
  'L',
  'patch-with-stat',
  'patch-with-raw',
  'binary',
  'check',
  'S',
  'G',
  'pickaxe-regex',
  'pickaxe-all',
  'find-object',
];

/** `git branch` and `git tag` list only: no operands unless --list gives patterns. */
const listing = (flags: string) =>
  sub(
    {
      flags,
      optional: 'n',
      exact: true,
      long: {
        ...names('list all remotes verbose show-current no-color no-column no-abbrev ignore-case omit-empty', 'none'),
        ...names('points-at sort format', 'value'),
        ...names('merged no-merged contains no-contains color column abbrev', 'optional'),
      },
    },
    () => false,
    (p) => (p.operands.length && !given(p, 'l', 'list') ? 'it creates, renames or deletes' : undefined),
  );

const SUBCOMMANDS: Record<string, (args: string[]) => ReadOnlyVerdict> = {
  log: sub(LOG, (p) => given(p, ...PATCH)),
  show: sub(LOG, () => true),
  diff: sub(LOG, () => true),
  shortlog: sub(
    {
      ...LOG,
      flags: 'nsec',
      optional: 'w',
      long: { ...LOG.long, ...names('numbered summary email committer', 'none'), group: 'value' },
    },
    () => false,
  ),
  blame: sub(
    {
      flags: 'bcefnpstlw',
      valued: 'LS',
      optional: 'MC',
      exact: true,
      long: {
        ...names(
          'root show-stats progress no-progress score-debug show-name show-number porcelain line-porcelain ' +
            'incremental color-lines color-by-age minimal first-parent show-email no-textconv',
          'none',
        ),
        ...names('encoding date reverse ignore-rev ignore-revs-file', 'value'),
        abbrev: 'optional',
      },
    },
    () => false,
  ),
  status: sub(
    {
      flags: 'sbvz',
      optional: 'u',
      exact: true,
      long: {
        ...names(
          'short branch show-stash long verbose no-column ahead-behind no-ahead-behind renames no-renames null',
          'none',
        ),
        ...names('porcelain untracked-files ignore-submodules ignored column find-renames', 'optional'),
      },
    },
    // -v shows the staged changes as a patch, -vv the unstaged ones too.
    (p) => given(p, 'v', 'verbose'),
  ),
  'rev-parse': sub(
    {
      flags: 'q',
      exact: true,
      long: {
        ...names(
          'git-dir git-common-dir show-toplevel show-prefix show-cdup show-superproject-working-tree ' +
            'is-inside-git-dir is-inside-work-tree is-bare-repository is-shallow-repository absolute-git-dir ' +
            'shared-index-path verify quiet sq not symbolic symbolic-full-name all revs-only no-revs flags no-flags ' +
            'local-env-vars sq-quote stop-at-non-option keep-dashdash stuck-long',
          'none',
        ),
        ...names(
          'glob exclude disambiguate since after until before default prefix resolve-git-dir git-path path-format',
          'value',
        ),
        ...names('show-object-format abbrev-ref short branches tags remotes', 'optional'),
      },
    },
    () => false,
  ),
  'ls-files': sub(
    {
      flags: 'cdmoiskuztvf',
      valued: 'xX',
      exact: true,
      long: {
        ...names(
          'cached deleted modified others ignored stage killed directory no-empty-directory eol unmerged ' +
            'resolve-undo exclude-standard error-unmatch full-name debug deduplicate sparse',
          'none',
        ),
        ...names('exclude exclude-from exclude-per-directory with-tree format', 'value'),
        abbrev: 'optional',
      },
    },
    () => false,
  ),
  describe: sub(
    {
      exact: true,
      long: {
        ...names('all tags contains exact-match debug long always first-parent', 'none'),
        ...names('candidates match exclude', 'value'),
        ...names('abbrev dirty broken', 'optional'),
      },
    },
    () => false,
  ),
  branch: listing('arvl'),
  tag: listing('l'),
  remote: (args) =>
    args.length === 0 ||
    args.every((a) => a === '-v' || a === '--verbose') ||
    (args[0] === 'get-url' &&
      args.length <= 3 &&
      args.slice(1).every((a) => !a.startsWith('-') || /^--(push|all)$/.test(a)))
      ? { paths: [], roots: [], git: { content: false } }
      : { refused: 'git remote changes remotes or reaches the network' },
};

/** Options before the subcommand that change nothing git reads or runs. */
const HARMLESS_GLOBAL = new Set(['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs']);

export const GIT: Program = (args) => {
  let i = 0;
  while (i < args.length && HARMLESS_GLOBAL.has(args[i]!)) i++;
  const name = args[i];
  if (name === undefined) return { refused: 'git without a subcommand' };
  // Other options before the subcommand (-c, -C, --git-dir, --exec-path ...) change what runs.
  const check = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  return check ? check(args.slice(i + 1)) : { refused: `git ${name} is not a subcommand known to only read` };
};
