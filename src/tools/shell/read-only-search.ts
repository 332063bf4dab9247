/**
 * The read-only uses of the search programs: grep (GNU grep 3.8), ripgrep (13/14) and find
 * (GNU findutils 4.9). Each walks folders, so each verdict names the folders it walks (its
 * roots): the path checks judge everything under them. Walking through symlinks (grep -R,
 * rg -L, find -L / -follow) is not read-only here: a link inside could lead anywhere. Nor are
 * options that run programs (rg --pre, -z, --hostname-bin; find -exec, -ok), write files (find
 * -fprint, -fls, -delete) or read the list of files to search from a file (find -files0-from).
 */
import { given, valuesOf, type ParsedArgs } from './options.ts';
import { HELP, names, reads, type Program, type ReadOnlyVerdict } from './program.ts';

/** The folders a grep-like search walks: the operands after the pattern (none: the working folder). */
function searched(parsed: ParsedArgs, patternGiven: boolean): string[] {
  const files = patternGiven ? parsed.operands : parsed.operands.slice(1);
  return files.length ? files : ['.'];
}

const grep = reads(
  {
    flags: 'EFGPiywxzsvVbnHhoqaIrLlcTZU',
    valued: 'efmdDABC',
    numeric: true,
    long: {
      ...names(
        'extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case word-regexp ' +
          'line-regexp null-data no-messages invert-match byte-offset line-number line-buffered with-filename ' +
          'no-filename only-matching quiet silent text recursive files-without-match files-with-matches count ' +
          'initial-tab null binary no-group-separator',
        'none',
      ),
      ...names(
        'regexp file max-count label binary-files directories devices include exclude exclude-from exclude-dir ' +
          'before-context after-context context group-separator',
        'value',
      ),
      ...names('color colour', 'optional'),
      ...HELP,
    },
    others: ['dereference-recursive'],
  },
  {
    roots: (p) =>
      given(p, 'r', 'recursive') || valuesOf(p, 'd', 'directories').includes('recurse')
        ? searched(p, given(p, 'e', 'f', 'regexp', 'file'))
        : [],
  },
);

/** ripgrep parses whole long names only; it walks every folder it is given. */
const rg = reads(
  {
    flags: 'isSFwxvclnNHIoquUPa0bphV',
    valued: 'ABCEMefgjmrtTd',
    exact: true,
    long: {
      ...names(
        'binary no-binary case-sensitive ignore-case smart-case column no-column no-context-separator count ' +
          'count-matches crlf no-crlf no-encoding files files-with-matches files-without-match fixed-strings ' +
          'no-fixed-strings glob-case-insensitive no-glob-case-insensitive heading no-heading hidden no-hidden ' +
          'ignore-file-case-insensitive no-ignore-file-case-insensitive include-zero invert-match json no-json ' +
          'line-buffered no-line-buffered block-buffered no-block-buffered line-number no-line-number ' +
          'line-regexp no-max-columns-preview max-columns-preview mmap no-mmap multiline no-multiline ' +
          'multiline-dotall no-multiline-dotall no-config no-ignore no-ignore-dot no-ignore-exclude ' +
          'no-ignore-files no-ignore-global no-ignore-messages no-ignore-parent no-ignore-vcs ignore ignore-dot ' +
          'ignore-exclude ignore-files ignore-global ignore-messages ignore-parent ignore-vcs no-messages messages ' +
          'no-pcre2-unicode pcre2-unicode no-require-git require-git null null-data one-file-system ' +
          'no-one-file-system only-matching passthru passthrough pcre2 no-pcre2 pcre2-version pretty quiet ' +
          'no-search-zip stats no-stats text no-text trim no-trim type-list unrestricted vimgrep with-filename ' +
          'no-filename word-regexp auto-hybrid-regex no-auto-hybrid-regex debug trace unicode no-unicode no-pre ' +
          'no-follow sort-files no-sort-files',
        'none',
      ),
      ...names(
        'after-context before-context context color colors context-separator encoding engine ' +
          'field-context-separator field-match-separator file glob iglob ignore-file max-columns max-count ' +
          'max-depth maxdepth max-filesize path-separator regex-size-limit dfa-size-limit regexp replace sort ' +
          'sortr threads type type-not type-add type-clear',
        'value',
      ),
      ...HELP,
    },
  },
  {
    roots: (p) =>
      given(p, 'type-list', 'pcre2-version', 'help', 'version', 'h', 'V')
        ? []
        : searched(p, given(p, 'e', 'f', 'regexp', 'file', 'files')),
  },
);

/** find's tests and options that take one argument (the others take none). */
const FIND_VALUED = new Set(
  (
    '-maxdepth -mindepth -regextype -amin -anewer -atime -cmin -cnewer -ctime -fstype -gid -group -ilname -iname ' +
    '-inum -ipath -iregex -iwholename -links -lname -mmin -mtime -name -newer -path -perm -regex -samefile -size ' +
    '-type -uid -used -user -wholename -xtype -context -printf'
  ).split(' '),
);
const FIND_FLAGS = new Set(
  (
    '-daystart -depth -d -ignore_readdir_race -noignore_readdir_race -mount -xdev -noleaf -nowarn -warn -empty ' +
    '-executable -false -nogroup -nouser -readable -true -writable -print -print0 -ls -prune -quit -not -a -and ' +
    '-o -or ( ) ! , -help --help -version --version'
  ).split(' '),
);

/**
 * find [-H] [-P] [-D opts] [-Olevel] [starting-point...] [expression]: every word of the expression
 * must be a known test, option or operator (an action that writes or runs, `-L`, `-follow` and
 * `-files0-from` are not among them).
 */
function find(args: string[]): ReadOnlyVerdict {
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-H' || arg === '-P' || /^-O\d$/.test(arg)) continue;
    if (arg === '-D') i++;
    else break;
  }
  const starts: string[] = [];
  for (; i < args.length && !/^[-(!]/.test(args[i]!); i++) starts.push(args[i]!);
  const values: string[] = [];
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (FIND_FLAGS.has(arg)) continue;
    if (FIND_VALUED.has(arg) || /^-newer[amBct][amBct]$/.test(arg)) {
      if (args[i + 1] === undefined) return { refused: `find ${arg}: its value is missing` };
      values.push(args[++i]!);
      continue;
    }
    return { refused: `find ${arg} is not a test known to only read` };
  }
  const listed = starts.length ? starts : ['.'];
  return { paths: [...listed, ...values], roots: [], listed };
}

export const SEARCHERS: Record<string, Program> = { grep, egrep: grep, fgrep: grep, rg, find };
