/**
 * What a command may read without naming it, for `Read(...)` deny rules (which bind in every mode,
 * bypassPermissions included): code an interpreter is given (`python3 -c`, `node -e`, `perl -e`,
 * awk programs, SQL that can call `readfile`), file names a command reads from its input (`xargs`,
 * `parallel`), folders it reads or copies whole (`grep -R`, `rg -L`, `cp -r`, `tar`, `zip`,
 * `ln -s .`, `find -exec`) and git subcommands that print or copy the blobs of the repository
 * (`git grep`, `archive`, `cat-file`, `stash show -p`, `format-patch`, `whatchanged` ...). Each is
 * judged on one argv, as the wrappers' unwrapping (programs.ts) gives it; generous on purpose: a
 * false match asks, a missed one prints a protected file.
 */
import path from 'node:path';
import { pathOperands } from './line-walk.ts';
import { sedScriptReachesOut, sedScripts } from './sed-script.ts';

/**
 * Programs that run the commands they are given or open an editor, which runs them: editors, calculators, terminal
 * multiplexers and job schedulers, whose commands (on their command line or input) read any file or run a shell line
 * (`ed` and `dc` read theirs from stdin: `… | ed -s a.txt`). Any use of one as the command counts; `code`: the options
 * that hand an editor commands, which count wherever another program starts it (`npx vim -c ':r .env'`).
 */
const COMMAND_RUNNERS: Array<{ name: RegExp; code?: RegExp }> = [
  { name: /^(vim?|nvim|ex|view|gvim|vimdiff)$/, code: /^(-[a-zA-Z]*[cSs]$|--cmd|\+)/ },
  { name: /^emacs(client)?$/, code: /^(--eval|-l|--load|-batch|--batch|--script|-x)/ },
  { name: /^(ed|red|dc|nano|mg|tmux|screen|dtach|abduco|at|batch)$/ },
];

/**
 * Interpreters, and the options that hand them code on the command line; `stdin`: with no operand, the code comes on
 * standard input (an editor with none just opens).
 */
const INTERPRETERS: Array<{ name: RegExp; code: RegExp; stdin?: false }> = [
  { name: /^(python|pypy)[\d.]*$/, code: /^-[a-zA-Z]*[cm]/ },
  { name: /^(node|nodejs|bun)$/, code: /^(-[a-zA-Z]*[ep]|--eval|--print)(=|$)/ },
  { name: /^deno$/, code: /^(eval|repl|-)$/ },
  {
    name: /^(perl|ruby|lua|luajit|Rscript|R|julia|osascript|racket)[\d.]*$/,
    code: /^(-[a-zA-Z0-9]*[eE]|--eval|--expr)/,
  },
  { name: /^php[\d.]*$/, code: /^-[a-zA-Z]*[rRBE]/ },
  { name: /^(pwsh|powershell)$/, code: /^-[cCeE]/ },
  { name: /^(guile|sbcl|clisp|ocaml|ghci|runghc|tclsh|wish|expect|irb|jshell)$/, code: /^-/ },
  // Editors run the commands they are given (`vim -c ':r .env'`, `emacs --eval`): COMMAND_RUNNERS.
  ...COMMAND_RUNNERS.flatMap(({ name, code }) => (code ? [{ name, code, stdin: false as const }] : [])),
];
/** Programs whose first operand is code (unless `-f` names a program file): awk's getline reads any file. */
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk']);
/** Programs that take a query able to read files (`readfile('.env')`, `read_text`): any use. */
const QUERIES = new Set(['sqlite3', 'duckdb']);
/**
 * Options that hand a program a command to run (`tar --to-command='cat .env'`, `sort
 * --compress-program=./x.sh`, `split --filter`, `ssh -o ProxyCommand=…`): their GNU abbreviations too.
 */
const RUNS_OPTION: Record<string, RegExp> = {
  tar: /^(-[a-zA-Z]*[IF]|--(to-c|checkpoint-a|use-c|rsh|info|new-v|rmt)[a-z-]*(=|$))/,
  gtar: /^(-[a-zA-Z]*[IF]|--(to-c|checkpoint-a|use-c|rsh|info|new-v|rmt)[a-z-]*(=|$))/,
  sort: /^--com[a-z-]*(=|$)/,
  split: /^--fi[a-z-]*(=|$)/,
  diff: /^--diff-p[a-z-]*(=|$)/,
  sdiff: /^--diff-p[a-z-]*(=|$)/,
  diff3: /^--diff-p[a-z-]*(=|$)/,
  zip: /^(-TT|--unzip-command)/,
  rsync: /^(-[a-zA-Z]*e|--(rsh|rsync-path)(=|$))/,
  ssh: /^-[a-zA-Z]*[oF]/,
  scp: /^-[a-zA-Z]*[oFS]/,
  sftp: /^-[a-zA-Z]*[oFSD]/,
  man: /^(-[a-zA-Z]*[PH]|--(pager|html)(=|$))/,
};
/** Programs that read the names of the files they open from stdin or a file. */
const NAMES_FROM_INPUT = new Set(['xargs', 'parallel', 'cpio', 'afio']);
/** Programs that copy, link or archive what they are given, folders whole. */
const COPIERS = new Set([
  ...'cp ln mv install rsync scp sftp tar gtar bsdtar zip 7z 7za 7zr jar ar pax rclone'.split(' '),
  ...'gzip bzip2 xz zstd lz4 base64 xxd od hexdump strings'.split(' '),
]);

/** Why `argv` may read files it does not name (code, or names from its input), or undefined. */
export function unseenReads(argv: string[]): string | undefined {
  const [program = '', ...args] = argv;
  const name = path.basename(program);
  const words = args.filter((a) => !a.startsWith('-'));
  const asksVersion = args.length > 0 && args.every((a) => /^(--version|-V|--help|-h)$/.test(a));
  const code = interpreterCode(argv);
  if (code) return `${code} runs code given on its command line or its input, which may read any file`;
  if (AWKS.has(name) && !args.some((a) => /^(-[a-zA-Z]*f|--file)/.test(a)))
    return `${name} runs the program it is given, which may read any file (getline)`;
  if (QUERIES.has(name)) return `${name} runs a query, which may read any file`;
  if (COMMAND_RUNNERS.some((runner) => runner.name.test(name)) && !asksVersion)
    return `${name} runs the commands it is given, which may read any file`;
  if (RUNS_OPTION[name] && args.some((a) => RUNS_OPTION[name]!.test(a)))
    return `${name} is given a command to run, which may read any file`;
  if ((name === 'sed' || name === 'gsed') && !args.some((a) => isSandboxed(a))) {
    const { scripts } = sedScripts(args);
    if (scripts.some(sedScriptReachesOut)) return `${name} is given a script that reads, writes or runs (r, R, w, e)`;
  }
  if (NAMES_FROM_INPUT.has(name) && (name !== 'xargs' || words.length > 0))
    return `${name} opens files whose names it reads from its input`;
  if (name === 'git') return gitUnknown(args);
  return undefined;
}

/** GNU sed's `--sandbox` (any abbreviation of it): e, r and w are refused. */
const isSandboxed = (arg: string) => /^--sa(n(d(b(o(x)?)?)?)?)?$/.test(arg);

/**
 * The interpreter of `argv` that is given code: the program itself (code in an option, or on stdin when it has no
 * operand), or one a runner starts with code in an option (`uv run python -c`, `npx node -e`, `poetry run …`).
 */
function interpreterCode(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const name = path.basename(argv[i]!);
    const interpreter = INTERPRETERS.find((it) => it.name.test(name));
    if (!interpreter) continue;
    const args = argv.slice(i + 1);
    if (args.some((a) => interpreter.code.test(a))) return name;
    if (i > 0 || interpreter.stdin === false) continue;
    const words = args.filter((a) => !a.startsWith('-'));
    const asksVersion = args.length > 0 && args.every((a) => /^(--version|-V|--help|-h)$/.test(a));
    if (!asksVersion && (words.length === 0 || words[0] === '-')) return name;
  }
  return undefined;
}

/** The folders `argv` reads every file of without being read-only (grep -R, rg -L, cp -r, tar, find -exec). */
export function folderReads(argv: string[]): string[] {
  const [program = '', ...args] = argv;
  const name = path.basename(program);
  const operands = pathOperands(argv).filter((word) => !word.startsWith('-'));
  // A search's first operand may be its pattern: with no other, it searches the folder it is in.
  const searched = operands.length > 1 ? operands : [...operands, '.'];
  if (
    /^[ef]?grep$/.test(name) &&
    args.some((a) => /^(-[a-zA-Z]*[rR]|--(recursive|dereference-recursive|d=recurse))/.test(a))
  )
    return searched;
  if (['rg', 'ripgrep', 'ag', 'ack', 'git-grep'].includes(name)) return searched;
  if (name === 'find' && args.some((a) => /^-(exec|execdir|ok|okdir)$/.test(a))) {
    const starts = args
      .slice(
        0,
        Math.max(
          0,
          args.findIndex((a) => /^[-(!]/.test(a)),
        ),
      )
      .filter((a) => a !== '--');
    return starts.length ? starts : ['.'];
  }
  if (COPIERS.has(name)) return operands.length ? operands : ['.'];
  return [];
}

/** Options before git's subcommand that change nothing it reads. */
const HARMLESS_GLOBAL = new Set([
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--no-replace-objects',
]);
/**
 * git subcommands that print no file's contents and copy none out of the repository (with no
 * patch option): the rest (`grep`, `archive`, `cat-file`, `show`, `blame`, `format-patch`,
 * `whatchanged`, `fast-export`, `bundle`, `clone`, `push`, `worktree add`, `fsck --lost-found`,
 * an alias ...) may.
 */
const NO_CONTENT = new Set(
  (
    'add branch checkout switch restore reset rm mv init commit fetch pull merge rebase revert cherry-pick clean ' +
    'config describe ls-files ls-tree ls-remote rev-list rev-parse remote shortlog show-ref status tag gc prune ' +
    'count-objects symbolic-ref update-ref write-tree check-ignore check-attr var version help ' +
    'stash bisect submodule log'
  ).split(' '),
);
/** Options that make those print changes as patches or search them (`log -p`, `log -S`, `stash list -p`, `add -p`). */
const PATCHY = new RegExp(
  '^(-[a-zA-Z]*[pSGcW]|-[a-zA-Z]*U\\d*|--patch|--patch-with-\\w+|--stdout|--binary|--cc|--word-diff|--color-words|' +
    '--pickaxe-\\w+|--unified|--remerge-diff|--function-context)(=|$)',
);
/** Subcommand words that run a program or a shell line: what they read is unknown. */
const RUNS = /^(-x.*|--exec(=.*)?|-i|--interactive|run|foreach)$/;
/** Options of any subcommand that name the program git runs for the other side (`fetch --upload-pack='cat .env'`). */
const REMOTE_PROGRAM = /^--(upload-pack|receive-pack|exec)(=|$)/;

/** Keys `git config` may set without naming a program or a file git reads (the rest may: hooksPath, fsmonitor …). */
const PLAIN_KEY = /^(user\.(name|email)|color\.[\w.]+|advice\.\w+|init\.defaultbranch|push\.default|pull\.rebase)$/i;

/** True when a `git config` argv (after the subcommand) sets a key other than a plain one. */
function configSets(rest: string[]): boolean {
  if (rest.some((a) => /^(-e|--edit|--add|--replace-all|--rename-section)$/.test(a))) return true;
  const words = rest.filter((a) => !a.startsWith('-'));
  const [key, value] = words[0] === 'set' ? [words[1], words[2]] : [words[0], words[1]];
  return value !== undefined && !PLAIN_KEY.test(key ?? '');
}

/** A git command whose program or repository cannot be judged (`git -c alias.x='!cat .env'`, `rebase -x`). */
function gitUnknown(args: string[]): string | undefined {
  let i = 0;
  while (i < args.length && HARMLESS_GLOBAL.has(args[i]!)) i++;
  if (args[i]?.startsWith('-')) return `git ${args[i]} changes what git runs or which repository it reads`;
  if (['rebase', 'bisect', 'submodule'].includes(args[i] ?? '') && args.slice(i + 1).some((a) => RUNS.test(a)))
    return `git ${args[i]} runs a command it is given`;
  const rest = args.slice(i + 1);
  if (args[i] === 'config' && configSets(rest))
    return 'git config sets a value, which may name a program git runs later (a hook path, fsmonitor, a filter)';
  if (rest.some((a) => REMOTE_PROGRAM.test(a)) || (args[i] === 'ls-remote' && rest.some((a) => /^-[a-zA-Z]*u/.test(a))))
    return `git ${args[i]} is given a program to run`;
  return undefined;
}

/** True when a git argv may print or copy out the contents of the repository's files. */
export function gitPrints(argv: string[]): boolean {
  if (path.basename(argv[0] ?? '') !== 'git') return false;
  const args = argv.slice(1);
  let i = 0;
  while (i < args.length && HARMLESS_GLOBAL.has(args[i]!)) i++;
  const sub = args[i];
  if (sub === undefined) return false;
  const rest = args.slice(i + 1);
  if (!NO_CONTENT.has(sub)) return true;
  if (sub === 'stash' && (rest[0] === 'show' || rest[0] === 'list')) return true;
  // `status -v` and `commit -v` (`--dry-run`, or in the editor's template) show the staged changes as a patch.
  return rest.some(
    (a) => PATCHY.test(a) || (['status', 'commit'].includes(sub) && /^(-[a-zA-Z]*v|--verbose)$/.test(a)),
  );
}
