/**
 * Which simple commands only read. A program is read-only when it is on this allow-list AND
 * every flag it was given is known not to write or execute; anything else is unknown, and
 * unknown means "ask". Programs are matched by bare name only: `./ls` or `/tmp/ls` could be
 * anything.
 */

/** Decides one command's arguments (argv without the program name). */
type ArgsCheck = (args: string[]) => boolean;

const any: ArgsCheck = () => true;

/** Short-option clusters (`-ro`) contain one of these letters, or a long option has one of these names. */
function without(shortLetters: string, long: string[]): ArgsCheck {
  return (args) => {
    for (const arg of args) {
      if (arg === '--') break;
      if (arg.startsWith('--')) {
        const name = arg.slice(2).split('=')[0]!;
        if (long.some((l) => l === name || (l.endsWith('*') && name.startsWith(l.slice(0, -1))))) return false;
      } else if (arg.startsWith('-') && arg.length > 1 && [...arg.slice(1)].some((c) => shortLetters.includes(c)))
        return false;
    }
    return true;
  };
}

/** Only these flags, and no operands. */
function onlyFlags(allowed: string[]): ArgsCheck {
  return (args) => args.every((a) => allowed.includes(a));
}

const operands = (args: string[]) => args.filter((a) => !a.startsWith('-') || a === '-');

const FIND_ACTIONS = new Set([
  '-delete',
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
]);

const GIT_DIFF_WRITES = ['output', 'ext-diff', 'textconv', 'open-files-in-pager'];
const GIT_LIST_FLAGS = [
  '-a',
  '-r',
  '-v',
  '-vv',
  '-l',
  '--list',
  '--all',
  '--remotes',
  '--verbose',
  '--show-current',
  '--merged',
  '--no-merged',
  '--no-color',
  '--color',
  '--no-column',
];

function gitListing(args: string[]): boolean {
  // `git branch` / `git tag` list only without operands, or with --list/-l (patterns).
  const listing = args.includes('-l') || args.includes('--list');
  return args.every(
    (a) =>
      GIT_LIST_FLAGS.includes(a) ||
      /^--(sort|format|contains|points-at|merged|no-merged)=/.test(a) ||
      /^-n\d*$/.test(a) ||
      (listing && !a.startsWith('-')),
  );
}

const GIT: Record<string, ArgsCheck> = {
  status: without('', ['ignore-submodules*']),
  log: without('', GIT_DIFF_WRITES),
  show: without('', GIT_DIFF_WRITES),
  diff: without('', GIT_DIFF_WRITES),
  blame: without('', ['contents*']),
  shortlog: any,
  'rev-parse': any,
  'ls-files': without('', ['with-tree*']),
  describe: any,
  branch: gitListing,
  tag: gitListing,
  remote: (args) =>
    args.length === 0 || onlyFlags(['-v', '--verbose'])(args) || (args[0] === 'get-url' && args.length <= 3),
};

function git(args: string[]): boolean {
  const [sub, ...rest] = args;
  // Options before the subcommand (-c, -C, --exec-path, --git-dir ...) change what runs: ask.
  const check = sub === undefined ? undefined : GIT[sub];
  return check !== undefined && check(rest);
}

// The options of `date` that only choose what it prints (-s and --set, which set the clock, are not among them).
const DATE_DISPLAY = new RegExp(
  String.raw`^(\+.*|-u|--utc|--universal|-R|--rfc-email|-I\w*|--iso-8601(=.*)?|--rfc-3339=.*|` +
    String.raw`-d|--date=.*|-r|--reference=.*|--debug)$`,
);

const PROGRAMS: Record<string, ArgsCheck> = {
  ls: any,
  pwd: any,
  cat: any,
  head: any,
  tail: any,
  wc: any,
  echo: any,
  printf: without('v', []),
  grep: any,
  egrep: any,
  fgrep: any,
  stat: any,
  du: any,
  df: any,
  whoami: any,
  uname: any,
  which: any,
  cut: any,
  diff: any,
  true: any,
  false: any,
  basename: any,
  dirname: any,
  realpath: any,
  readlink: any,
  nl: any,
  tr: any,
  column: any,
  id: any,
  cd: any,
  od: any,
  hexdump: any,
  cmp: any,
  comm: any,
  md5sum: any,
  sha1sum: any,
  sha256sum: any,
  jq: any,
  test: any,
  seq: any,
  env: (args) => args.length === 0,
  printenv: any,
  file: without('C', ['compile']),
  tree: without('o', []),
  rg: without('z', ['pre', 'pre-glob', 'search-zip']),
  sort: without('o', ['output', 'compress-program']),
  uniq: (args) => operands(args).length <= 1 && !args.some((a) => /^-[fsw]$|^--(skip|check)-/.test(a)),
  find: (args) => !args.some((a) => FIND_ACTIONS.has(a)),
  date: (args) => args.every((a, i) => DATE_DISPLAY.test(a) || /^(-d|-r)$/.test(args[i - 1] ?? '')),
  hostname: onlyFlags([
    '-f',
    '-s',
    '-i',
    '-I',
    '-d',
    '-a',
    '-A',
    '-y',
    '--fqdn',
    '--long',
    '--short',
    '--domain',
    '--ip-address',
    '--all-ip-addresses',
    '--all-fqdns',
    '--alias',
  ]),
  git,
};

/** True when this argv (program first) is known to change nothing and run nothing else. */
export function isReadOnlyArgv(argv: string[]): boolean {
  const [program, ...args] = argv;
  if (program === undefined || program.includes('/')) return false;
  const check = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program] : undefined;
  return check !== undefined && check(args);
}

/**
 * Every word of a command that may name a file it touches: operands, `--opt=value` values,
 * values glued to short options (`-fFILE`), and the path part of `rev:path`. Generous on
 * purpose: it feeds deny checks, where a false match asks, and a missed one leaks.
 */
export function pathOperands(argv: string[]): string[] {
  const out: string[] = [];
  for (const arg of argv.slice(1)) {
    if (arg === '-' || arg === '--' || arg === '') continue;
    const long = /^--[\w-]+=(.+)$/s.exec(arg);
    if (long) out.push(long[1]!);
    else if (/^-[A-Za-z]/.test(arg)) {
      if (arg.length > 2) out.push(arg.slice(2));
    } else {
      out.push(arg);
      const colon = arg.indexOf(':');
      if (colon > 0 && colon < arg.length - 1) out.push(arg.slice(colon + 1));
    }
  }
  return out;
}
