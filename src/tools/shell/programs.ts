/**
 * What a simple command really runs, for deny rules: wrappers are unwrapped with their own option
 * parsers (`nice --adjustment 5 rm`, `xargs --max-args 1 rm`, `sudo -u x rm`, `env A=1 rm`,
 * `timeout -s KILL 5 rm`, `flock f -c 'rm x'`, `script -qc 'rm x'`), paths reduced to the program
 * name (`/bin/rm`), `sh -c "…"`, `eval "…"` and `watch "…"` parsed again, and `find -exec rm` /
 * `find -delete` seen as the removal they are. A wrapper option this reading does not know, a
 * program name a glob could change, or a shell given a script makes the line's programs unknown:
 * with deny rules set, it asks.
 */
import path from 'node:path';
import { parseArgs, type OptionSpec } from './options.ts';
import { analyzeShell, type ShellAnalysis, type SimpleCommand } from './parse.ts';
import { names } from './program.ts';

/** The commands a line runs, as argv lists with bare program names, and whether some are unknown. */
export interface RunInventory {
  commands: string[][];
  /** Something runs that cannot be named (a computed name, `bash script.sh`, `source f` ...). */
  unknown: boolean;
  /** The shell lines the line's own commands hand to a shell (`bash -c`, `eval`, `trap`, `flock -c` ...), unparsed. */
  lines: string[];
}

/** A program that runs another: its options, the operands before the program, a shell line it runs. */
interface Wrapper {
  spec: OptionSpec;
  /** Operands before the program (timeout's duration, chroot's folder, flock's lock file, chrt's priority). */
  skip?: number;
  /** Options whose value is a shell line it runs (`-c`). */
  line?: string[];
  /** It runs its operands joined as one shell line (`watch 'rm x'`). */
  joined?: boolean;
  /**
   * Its operands are not a program (script's typescript file, su's user): what it runs is the
   * line of a `line` option, or else an interactive shell, which is unknown.
   */
  lineOnly?: boolean;
}

const w = (spec: OptionSpec, more: Omit<Wrapper, 'spec'> = {}): Wrapper => ({
  spec: { stopAtOperand: true, ...spec },
  ...more,
});
const HELP = { help: 'none', version: 'none' } as const;

const WRAPPERS: Record<string, Wrapper> = {
  command: w({ flags: 'pvV', exact: true }),
  builtin: w({ exact: true }),
  exec: w({ flags: 'cl', valued: 'a', exact: true }),
  nohup: w({ long: HELP }),
  time: w({
    flags: 'pqva',
    valued: 'fo',
    long: { ...names('append verbose portability quiet', 'none'), ...names('format output', 'value'), ...HELP },
  }),
  nice: w({ valued: 'n', numeric: true, long: { adjustment: 'value', ...HELP } }),
  ionice: w({
    flags: 't',
    valued: 'cnpPu',
    long: { ...names('class classdata pid pgid uid', 'value'), ignore: 'none', ...HELP },
  }),
  setsid: w({ flags: 'cfw', long: { ...names('ctty fork wait', 'none'), ...HELP } }),
  stdbuf: w({ valued: 'ioe', long: { ...names('input output error', 'value'), ...HELP } }),
  timeout: w(
    {
      flags: 'v',
      valued: 'ks',
      long: { ...names('preserve-status foreground verbose', 'none'), ...names('kill-after signal', 'value'), ...HELP },
    },
    { skip: 1 },
  ),
  sudo: w({
    flags: 'ABbEeHiKklnPSsVv',
    valued: 'CDghpRrTtUu',
    long: {
      ...names(
        'askpass background edit set-home login remove-timestamp reset-timestamp list non-interactive ' +
          'preserve-groups stdin shell validate',
        'none',
      ),
      ...names('close-from chdir group host prompt chroot role type command-timeout other-user user', 'value'),
      'preserve-env': 'optional',
      ...HELP,
    },
  }),
  doas: w({ flags: 'Lns', valued: 'uC', exact: true }),
  env: w({
    flags: 'i0v',
    valued: 'uC',
    long: {
      ...names('ignore-environment null list-signal-handling debug', 'none'),
      ...names('unset chdir', 'value'),
      ...names('block-signal default-signal ignore-signal', 'optional'),
      ...HELP,
    },
  }),
  xargs: w({
    flags: '0prtxo',
    valued: 'aEdILnPs',
    optional: 'eil',
    long: {
      ...names('null interactive no-run-if-empty open-tty verbose exit show-limits', 'none'),
      ...names('arg-file delimiter max-args max-procs max-chars process-slot-var', 'value'),
      ...names('eof replace max-lines', 'optional'),
      ...HELP,
    },
  }),
  watch: w(
    {
      flags: 'bcCegtxwpr',
      valued: 'nq',
      optional: 'd',
      long: {
        ...names('beep color no-color errexit chgexit no-title exec no-wrap precise no-rerun', 'none'),
        ...names('interval equexit', 'value'),
        differences: 'optional',
        ...HELP,
      },
    },
    { joined: true },
  ),
  chroot: w({ long: { ...names('userspec groups', 'value'), 'skip-chdir': 'none', ...HELP } }, { skip: 1 }),
  unbuffer: w({ flags: 'p', exact: true }),
  flock: w(
    {
      flags: 'sxunFov',
      valued: 'wEc',
      long: {
        ...names('shared exclusive unlock nonblock nb close no-fork verbose', 'none'),
        ...names('timeout wait conflict-exit-code command', 'value'),
        ...HELP,
      },
    },
    { skip: 1, line: ['c', 'command'] },
  ),
  taskset: w({ flags: 'acp', long: { ...names('all-tasks cpu-list pid', 'none'), ...HELP } }, { skip: 1 }),
  chrt: w(
    {
      flags: 'abdefiorRpmv',
      valued: 'TPD',
      long: {
        ...names('all-tasks batch deadline fifo idle other rr reset-on-fork pid max verbose', 'none'),
        ...names('sched-runtime sched-period sched-deadline', 'value'),
        ...HELP,
      },
    },
    { skip: 1 },
  ),
  unshare: w({
    flags: 'fcrlC',
    valued: 'RwSG',
    optional: 'muinpUT',
    long: {
      ...names('fork map-current-user map-root-user map-auto keep-caps load-interp monotonic boottime', 'none'),
      ...names(
        'propagation setgroups root wd setuid setgid map-user map-group map-users map-groups monotonic boottime',
        'value',
      ),
      ...names('mount uts ipc net pid user cgroup time kill-child mount-proc mount-binfmt', 'optional'),
      ...HELP,
    },
  }),
  setpriv: w({
    flags: 'd',
    long: {
      ...names('dump no-new-privs clear-groups keep-groups init-groups reset-env', 'none'),
      ...names(
        'ambient-caps inh-caps bounding-set ruid euid rgid egid reuid regid groups securebits pdeathsig ' +
          'selinux-label apparmor-profile landlock-access landlock-rule',
        'value',
      ),
      ...HELP,
    },
  }),
  script: w(
    {
      flags: 'aefqk',
      valued: 'cEIOBTmo',
      optional: 't',
      long: {
        ...names('append return flush force quiet logging-format', 'none'),
        ...names('command echo log-in log-out log-io log-timing output-limit', 'value'),
        timing: 'optional',
        ...HELP,
      },
    },
    { line: ['c', 'command'], lineOnly: true },
  ),
  su: w(
    {
      flags: 'lmpPfT',
      valued: 'cCgGsuw',
      long: {
        ...names('login preserve-environment pty fast no-pty', 'none'),
        ...names('command session-command group supp-group shell user whitelist-environment', 'value'),
        ...HELP,
      },
      // su's operands (a user, then arguments for the shell) may come before its options.
      stopAtOperand: false,
    },
    { line: ['c', 'C', 'command', 'session-command'], lineOnly: true },
  ),
  strace: w({ flags: 'cCdDfFhiqrtTvVwxyzZk', valued: 'aAbeEoOpPsSuUX', exact: true }),
  nsenter: w({
    flags: 'aFZ',
    valued: 'tSGrw',
    optional: 'muinpUCT',
    long: {
      ...names('all no-fork preserve-credentials follow-context', 'none'),
      ...names('target setuid setgid root wd wdns env', 'value'),
      ...names('mount uts ipc net pid user cgroup time', 'optional'),
      ...HELP,
    },
  }),
};
WRAPPERS.runuser = WRAPPERS.su!;
// Programs that run the rest of their words as a command: without any option this reading knows,
// so any option makes what they run unknown.
for (const name of [
  'fakeroot',
  'pkexec',
  'torsocks',
  'proxychains',
  'proxychains4',
  'firejail',
  'catchsegv',
  'valgrind',
  'ltrace',
  'prlimit',
  'numactl',
  'systemd-run',
  'dbus-launch',
  'xvfb-run',
  'chpst',
  'caffeinate',
  'chronic',
  'rlwrap',
  'proot',
  'bwrap',
  'cgexec',
  'parallel',
  'sem',
  'gdb',
])
  WRAPPERS[name] ??= w({ exact: true });
WRAPPERS.sg = w({ exact: true }, { skip: 1, line: ['c'] });

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox', 'fish', 'csh', 'tcsh']);
/**
 * Builtins that evaluate an operand: an array subscript (`let 'a[$(rm x)]'`, `read`, `declare`,
 * `test -v`, `printf -v`) runs the command substitution in it; `mapfile -C`, `compgen -C`/`-F`,
 * `complete`, `bind -x` and `fc` run a command they are given; `enable -f` loads a shared object.
 */
const EVALUATES_SUBSCRIPTS = new Set([
  ...'let declare typeset local export readonly read mapfile readarray printf'.split(' '),
  ...'test [ [[ unset shift return exit wait'.split(' '),
]);
const RUNS_WHAT_IT_IS_GIVEN = new Set(['compgen', 'complete', 'bind', 'fc', 'enable', 'mapfile', 'readarray']);
/** Programs that run the commands on their standard input (later). */
const READS_COMMANDS = new Set(['at', 'batch']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const MAX_DEPTH = 8;

/** Every command the analysed line runs, wrappers and nested shells included. */
export async function inventory(analysis: ShellAnalysis, depth = 0): Promise<RunInventory> {
  const out: RunInventory = { commands: [], unknown: analysis.opaqueName, lines: [] };
  for (const command of analysis.commands) await unwrap(command.argv, globbedIndexes(command), out, depth);
  return out;
}

const globbedIndexes = (command: SimpleCommand) =>
  new Set(command.patterns.flatMap((pattern, i) => (pattern === undefined ? [] : [i])));

async function unwrap(argv: string[], globbed: Set<number>, out: RunInventory, depth: number): Promise<void> {
  // A glob in the program's name: bash runs whatever the first match is.
  if (depth > MAX_DEPTH || argv.length === 0 || globbed.has(0)) {
    out.unknown = true;
    return;
  }
  const name = path.basename(argv[0]!);
  const args = argv.slice(1);
  const shifted = new Set([...globbed].map((i) => i - 1));
  out.commands.push([name, ...args]);
  if (name === 'eval') return nestedLine(args.join(' '), out, depth);
  if (name === 'source' || name === '.') {
    out.unknown = true;
    return;
  }
  if (SHELLS.has(name)) return shell(args, out, depth);
  if (name === 'trap') return trap(args, out, depth);
  if (READS_COMMANDS.has(name)) out.unknown = true;
  if (EVALUATES_SUBSCRIPTS.has(name) && args.some((a) => /[[$`]/.test(a))) out.unknown = true;
  if (RUNS_WHAT_IT_IS_GIVEN.has(name) && runsWhatItIsGiven(name, args)) out.unknown = true;
  if (name === 'find') return find(args, shifted, out, depth);
  const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (wrapper) await wrapped(name, wrapper, args, shifted, out, depth);
}

/**
 * A shell: with -c (alone or in a cluster) it runs its first operand after the options (`bash -c
 * -- 'rm x'`, `bash -c -e 'rm x'`); an option that takes a value (`-o`, `-O`, `--rcfile`) or one
 * not read here makes that unknown. Without -c it runs a script file, or the commands on its
 * standard input (`echo rm x | bash`): unknown either way.
 */
async function shell(args: string[], out: RunInventory, depth: number): Promise<void> {
  const first = args.findIndex((a) => a === '--' || !/^[-+]/.test(a));
  const options = first === -1 ? args : args.slice(0, first);
  const line = args[first] === '--' ? args[first + 1] : args[first];
  if (!options.some((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a)) || line === undefined) {
    out.unknown = true;
    return;
  }
  if (options.some((a) => !/^[-+][a-zA-Z]+$/.test(a) || /[oO]/.test(a))) out.unknown = true;
  return nestedLine(line, out, depth);
}

/** mapfile and readarray run a command only with -C; the others with any operand. */
const runsWhatItIsGiven = (name: string, args: string[]) =>
  name === 'mapfile' || name === 'readarray' ? args.some((a) => /^-\w*C/.test(a)) : args.length > 0;

/** `trap 'line' SIGNAL…` runs the line when the signal comes (EXIT: when the shell ends). */
async function trap(args: string[], out: RunInventory, depth: number): Promise<void> {
  const operands = args[0] === '--' ? args.slice(1) : args.filter((a) => !/^-[lp]+$/.test(a));
  if (operands.length >= 2) return nestedLine(operands[0]!, out, depth);
  if (operands.length === 1 && !/^-[lp]+$/.test(args[0] ?? '')) out.unknown = true;
}

async function find(args: string[], globbed: Set<number>, out: RunInventory, depth: number): Promise<void> {
  if (args.includes('-delete')) out.commands.push(['rm', ...args]);
  for (let i = 0; i < args.length; i++) {
    if (!FIND_EXEC.has(args[i]!)) continue;
    const end = args.findIndex((a, j) => j > i && (a === ';' || a === '+'));
    const inner = new Set([...globbed].map((g) => g - i - 1));
    await unwrap(args.slice(i + 1, end === -1 ? undefined : end), inner, out, depth + 1);
  }
}

async function wrapped(
  name: string,
  wrapper: Wrapper,
  args: string[],
  globbed: Set<number>,
  out: RunInventory,
  depth: number,
): Promise<void> {
  // env's NAME=VALUE operands come before the program; `env -` is `env -i`; -S splits a string into a command.
  let from = 0;
  if (name === 'env') while (from < args.length && (args[from] === '-' || /^-[iv0]*$/.test(args[from]!))) from++;
  const parsed = parseArgs(args.slice(from), wrapper.spec);
  if ('refused' in parsed) {
    out.unknown = true;
    return;
  }
  for (const option of parsed.options)
    if (wrapper.line?.includes(option.name) && option.value !== undefined) await nestedLine(option.value, out, depth);
  let operands = parsed.operands;
  if (name === 'env') operands = operands.slice(operands.findIndex((o) => !/^[A-Za-z_]\w*=/.test(o)) >>> 0);
  operands = operands.slice(wrapper.skip ?? 0);
  // flock FILE -c 'line': the -c comes after the lock file.
  if (wrapper.line && (operands[0] === '-c' || operands[0] === '--command') && operands[1] !== undefined)
    return nestedLine(operands[1], out, depth);
  if (wrapper.lineOnly) {
    if (!parsed.options.some((o) => wrapper.line?.includes(o.name))) out.unknown = true;
    return;
  }
  if (operands.length === 0) return; // `env`, `time`, `xargs` alone: nothing else runs (xargs runs echo)
  if (wrapper.joined && !parsed.options.some((o) => o.name === 'x' || o.name === 'exec'))
    return nestedLine(operands.join(' '), out, depth);
  const offset = args.length - operands.length;
  await unwrap(operands, new Set([...globbed].map((g) => g - offset)), out, depth + 1);
}

async function nestedLine(line: string, out: RunInventory, depth: number): Promise<void> {
  // Only this line's own: a nested line's lines are its own inventory's, judged when it is.
  out.lines.push(line);
  const inner = await inventory(await analyzeShell(line), depth + 1);
  out.commands.push(...inner.commands);
  if (inner.unknown) out.unknown = true;
}
