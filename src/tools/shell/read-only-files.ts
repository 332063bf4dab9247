/**
 * The read-only uses of programs that read files: their allowed options, from each program's
 * `--help` (GNU coreutils 9.1, diffutils 3.8, util-linux 2.38, file 5.44, jq 1.6, tree 2.1). Long
 * options a program has but that write, run a program or read file names from a file or stdin
 * are listed in `others`, so an abbreviation of them (`sort --compress-prog`, `--o`) is known to
 * mean them. Follow modes that wait forever (`tail -f`) and recursive walks that follow symlinks
 * (`du -L`, `ls -RL`, `diff -r` without --no-dereference, `tree -l`) are not read-only here.
 */
import { given } from './options.ts';
import { HELP, names, operandsOrHere, reads, type Program, type ReadOnlyVerdict } from './program.ts';

/** md5sum and its kin: --check reads the names of the files to hash from a file. */
const checksum = reads({
  flags: 'btz',
  long: { ...names('binary tag text zero', 'none'), ...HELP },
  others: ['check', 'ignore-missing', 'quiet', 'status', 'strict', 'warn'],
});

/** `jq`'s filter may read the environment (`env`, `$ENV`) or load modules from files. */
const JQ_UNSAFE = /\benv\b|\$ENV\b|\$__prog_args|\b(import|include|modulemeta|get_search_list)\b/;

/**
 * jq 1.6: short options may cluster (`-rc`); `--arg NAME VALUE` and its kin take two words. The
 * filter is the first operand (a file of filters, `-f`, is not read here: what it holds is unknown).
 */
function jq(args: string[]): ReadOnlyVerdict {
  const two = new Set(['--arg', '--argjson', '--slurpfile', '--rawfile']);
  const long = new Set(
    (
      '--slurp --raw-output --join-output --ascii-output --compact-output --color-output --monochrome-output ' +
      '--sort-keys --null-input --raw-input --exit-status --tab --unbuffered --stream --seq --args --jsonargs ' +
      '--help --version'
    ).split(' '),
  );
  const paths: string[] = [];
  const operands: string[] = [];
  let rest = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (rest || arg === '-' || !arg.startsWith('-')) operands.push(arg);
    else if (arg === '--') rest = true;
    else if (two.has(arg)) {
      if (arg === '--slurpfile' || arg === '--rawfile') paths.push(args[i + 2] ?? '');
      i += 2;
    } else if (arg === '--indent') i++;
    else if (!long.has(arg) && !/^-[srjacCMSneRh]+$/.test(arg))
      return { refused: `jq ${arg} is not an option known to only read` };
  }
  const filter = operands[0] ?? '.';
  if (JQ_UNSAFE.test(filter)) return { refused: 'the jq filter reads the environment or loads modules' };
  // After --args/--jsonargs the operands are values, not files.
  const files = args.includes('--args') || args.includes('--jsonargs') ? [] : operands.slice(1);
  return { paths: [...files, ...paths], roots: [] };
}

export const FILE_READERS: Record<string, Program> = {
  ls: reads(
    {
      flags: 'aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1',
      valued: 'ITw',
      long: {
        ...names(
          'all almost-all author escape ignore-backups file-type full-time group-directories-first no-group ' +
            'human-readable si dereference-command-line dereference-command-line-symlink-to-dir inode kibibytes ' +
            'dereference literal numeric-uid-gid quote-name reverse recursive size context zero dired ' +
            'hide-control-chars show-control-chars directory',
          'none',
        ),
        ...names(
          'block-size format hide indicator-style ignore quoting-style sort time time-style tabsize width',
          'value',
        ),
        ...names('color classify hyperlink', 'optional'),
        ...HELP,
      },
    },
    {
      listed: (p) => (given(p, 'R', 'recursive') ? operandsOrHere(p) : []),
      refuse: (p) =>
        given(p, 'R', 'recursive') && given(p, 'L', 'dereference') ? 'ls -RL follows links while it walks' : undefined,
    },
  ),
  cat: reads({
    flags: 'AbeEnstTuv',
    long: {
      ...names('show-all number-nonblank number squeeze-blank show-ends show-nonprinting show-tabs', 'none'),
      ...HELP,
    },
  }),
  head: reads({
    flags: 'qvz',
    valued: 'cn',
    numeric: true,
    long: { ...names('quiet silent verbose zero-terminated', 'none'), ...names('bytes lines', 'value'), ...HELP },
  }),
  // tail -f waits for the file to grow, until the call times out.
  tail: reads({
    flags: 'qvz',
    valued: 'cn',
    numeric: true,
    long: { ...names('quiet silent verbose zero-terminated', 'none'), ...names('bytes lines', 'value'), ...HELP },
    others: ['follow', 'retry', 'pid', 'sleep-interval', 'max-unchanged-stats'],
  }),
  wc: reads({
    flags: 'cmlLw',
    long: { ...names('bytes chars lines max-line-length words', 'none'), total: 'value', ...HELP },
    others: ['files0-from'],
  }),
  stat: reads({
    flags: 'Lft',
    valued: 'c',
    long: { ...names('dereference file-system terse', 'none'), ...names('cached format printf', 'value'), ...HELP },
  }),
  du: reads(
    {
      flags: '0abcDHhklmPSsx',
      valued: 'BdtX',
      long: {
        ...names(
          'null all apparent-size bytes total dereference-args human-readable inodes count-links no-dereference ' +
            'separate-dirs si summarize one-file-system',
          'none',
        ),
        ...names('block-size max-depth threshold time-style exclude-from exclude', 'value'),
        time: 'optional',
        ...HELP,
      },
      others: ['files0-from', 'dereference'],
    },
    { listed: operandsOrHere },
  ),
  df: reads({
    flags: 'ahHiklPTv',
    valued: 'Btx',
    long: {
      ...names('all human-readable si inodes local no-sync portability sync total print-type', 'none'),
      ...names('block-size type exclude-type', 'value'),
      output: 'optional',
      ...HELP,
    },
  }),
  cut: reads({
    flags: 'nsz',
    valued: 'bcdf',
    long: {
      ...names('complement only-delimited zero-terminated', 'none'),
      ...names('bytes characters delimiter fields output-delimiter', 'value'),
      ...HELP,
    },
  }),
  // diff -r follows symlinks inside the folders it compares unless told not to; -l runs pr.
  diff: reads(
    {
      flags: 'iEZbwBacuenytTrNsqpd',
      valued: 'ICUWxXSFD',
      long: {
        ...names(
          'ignore-case ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space ' +
            'ignore-blank-lines text strip-trailing-cr ed rcs side-by-side left-column suppress-common-lines ' +
            'expand-tabs initial-tab suppress-blank-empty recursive no-dereference new-file ' +
            'unidirectional-new-file ignore-file-name-case no-ignore-file-name-case report-identical-files brief ' +
            'normal show-c-function minimal speed-large-files',
          'none',
        ),
        ...names(
          'ignore-matching-lines width tabsize exclude exclude-from starting-file from-file to-file ' +
            'show-function-line label ifdef old-line-format new-line-format unchanged-line-format line-format ' +
            'old-group-format new-group-format changed-group-format unchanged-group-format horizon-lines palette',
          'value',
        ),
        ...names('context unified color', 'optional'),
        ...HELP,
      },
      others: ['paginate'],
    },
    {
      roots: (p) => (given(p, 'r', 'recursive') ? p.operands : []),
      refuse: (p) =>
        given(p, 'r', 'recursive') && !given(p, 'no-dereference')
          ? 'diff -r follows links while it walks (add --no-dereference)'
          : undefined,
    },
  ),
  realpath: reads({
    flags: 'eLmPqsz',
    long: {
      ...names('canonicalize-existing canonicalize-missing logical physical quiet no-symlinks strip zero', 'none'),
      ...names('relative-base relative-to', 'value'),
      ...HELP,
    },
  }),
  readlink: reads({
    flags: 'femnqsvz',
    long: {
      ...names('canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero', 'none'),
      ...HELP,
    },
  }),
  nl: reads({
    flags: 'p',
    valued: 'bdfhilnsvw',
    long: {
      'no-renumber': 'none',
      ...names(
        'body-numbering section-delimiter footer-numbering header-numbering line-increment join-blank-lines ' +
          'number-format number-separator starting-line-number number-width',
        'value',
      ),
      ...HELP,
    },
  }),
  tr: reads(
    { flags: 'cCdst', long: { ...names('complement delete squeeze-repeats truncate-set1', 'none'), ...HELP } },
    { noPaths: true },
  ),
  column: reads({
    flags: 'tdeLJxhV',
    valued: 'nONlEHRTWripcos',
    long: {
      ...names('table table-noheadings table-header-repeat keep-empty-lines json fillrows', 'none'),
      ...names(
        'table-name table-order table-columns table-columns-limit table-noextreme table-hide table-right ' +
          'table-truncate table-wrap tree tree-id tree-parent output-width output-separator separator',
        'value',
      ),
      ...HELP,
    },
  }),
  od: reads({
    flags: 'abcdfilosxv',
    valued: 'AjNSt',
    optional: 'w',
    long: {
      ...names('output-duplicates traditional', 'none'),
      ...names('address-radix endian skip-bytes read-bytes format', 'value'),
      ...names('strings width', 'optional'),
      ...HELP,
    },
  }),
  hexdump: reads({
    flags: 'bcCdoxv',
    valued: 'efns',
    long: {
      ...names(
        'one-byte-octal one-byte-char canonical two-bytes-decimal two-bytes-octal two-bytes-hex no-squeezing',
        'none',
      ),
      ...names('format format-file length skip', 'value'),
      color: 'optional',
      ...HELP,
    },
  }),
  cmp: reads({
    flags: 'bls',
    valued: 'in',
    long: {
      ...names('print-bytes verbose quiet silent', 'none'),
      ...names('ignore-initial bytes', 'value'),
      ...HELP,
    },
  }),
  comm: reads({
    flags: '123z',
    long: {
      ...names('check-order nocheck-order total zero-terminated', 'none'),
      'output-delimiter': 'value',
      ...HELP,
    },
  }),
  md5sum: checksum,
  sha1sum: checksum,
  sha224sum: checksum,
  sha256sum: checksum,
  sha384sum: checksum,
  sha512sum: checksum,
  b2sum: checksum,
  sort: reads({
    flags: 'bdfghiMnRrVcCmsuz',
    valued: 'kSt',
    long: {
      ...names(
        'ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort ' +
          'human-numeric-sort numeric-sort random-sort reverse version-sort debug merge stable unique ' +
          'zero-terminated',
        'none',
      ),
      ...names('sort batch-size key parallel buffer-size field-separator', 'value'),
      check: 'optional',
      ...HELP,
    },
    others: ['compress-program', 'files0-from', 'output', 'random-source', 'temporary-directory'],
  }),
  // A second operand is the file uniq writes.
  uniq: reads(
    {
      flags: 'cdDiuz',
      valued: 'fsw',
      long: {
        ...names('count repeated ignore-case unique zero-terminated', 'none'),
        ...names('skip-fields skip-chars check-chars', 'value'),
        ...names('all-repeated group', 'optional'),
        ...HELP,
      },
    },
    { refuse: (p) => (p.operands.length > 1 ? 'uniq writes its second operand' : undefined) },
  ),
  // file: -C writes a compiled magic file, -z/-Z run decompressors, -f reads names from a file,
  // -p resets access times, -S turns its sandbox off.
  file: reads({
    flags: 'bcEhiklLnN0rsv',
    valued: 'eFmP',
    long: {
      ...names(
        'brief checking-printout mime apple extension mime-type mime-encoding keep-going list dereference ' +
          'no-dereference no-buffer no-pad print0 raw special-files debug',
        'none',
      ),
      ...names('magic-file exclude exclude-quiet separator parameter', 'value'),
      ...HELP,
    },
    others: ['uncompress', 'uncompress-noreport', 'files-from', 'preserve-date', 'no-sandbox', 'compile'],
  }),
  // tree: -o writes, -R with -H writes a page per folder, -l follows links, --fromfile reads a list.
  tree: reads(
    {
      flags: 'adfxqNQpugshDFvtcUriASnCXJ',
      valued: 'LPIT',
      exact: true,
      valueInNextWord: true,
      long: {
        ...names(
          'gitignore ignore-case matchdirs metafirst prune info noreport si du inodes device dirsfirst ' +
            'filesfirst nolinks',
          'none',
        ),
        ...names('charset filelimit timefmt sort gitfile infofile', 'value'),
        ...HELP,
      },
    },
    { listed: operandsOrHere },
  ),
  jq,
};
