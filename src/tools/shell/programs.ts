/**
 * What a simple command really runs, for deny rules: wrappers are unwrapped (`command rm`,
 * `sudo -u x rm`, `env A=1 rm`, `xargs rm`, `timeout 5 rm`), paths reduced to the program name
 * (`/bin/rm`), `sh -c "…"` and `eval "…"` parsed again, and `find -exec rm` / `find -delete`
 * seen as the removal they are.
 */
import path from 'node:path';
import { analyzeShell, type ShellAnalysis } from './parse.ts';

/** The commands a line runs, as argv lists with bare program names, and whether some are unknown. */
export interface RunInventory {
  commands: string[][];
  /** Something runs that cannot be named (a computed name, `bash script.sh`, `source f` ...). */
  unknown: boolean;
}

/** Options (of each wrapper) that take a value as the next word. */
const WRAPPERS: Record<string, Set<string>> = {
  command: new Set(),
  builtin: new Set(),
  exec: new Set(['-a']),
  nohup: new Set(),
  time: new Set(['-f', '-o']),
  nice: new Set(['-n']),
  ionice: new Set(['-c', '-n', '-p']),
  setsid: new Set(),
  stdbuf: new Set(['-i', '-o', '-e']),
  timeout: new Set(['-s', '-k', '--signal', '--kill-after']),
  sudo: new Set(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T']),
  doas: new Set(['-u', '-C']),
  env: new Set(['-u', '-C', '--unset', '--chdir']),
  xargs: new Set(['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a']),
  watch: new Set(['-n', '-d']),
  chroot: new Set(),
  unbuffer: new Set(),
  flock: new Set(['-w', '-E']),
};
/** Wrappers whose first operand is not the program (a duration, a directory, a lock file). */
const FIRST_OPERAND_SKIPPED = new Set(['timeout', 'chroot', 'flock']);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'busybox']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const MAX_DEPTH = 8;

/** Every command the analysed line runs, wrappers and nested shells included. */
export async function inventory(analysis: ShellAnalysis, depth = 0): Promise<RunInventory> {
  const out: RunInventory = { commands: [], unknown: analysis.opaqueName };
  for (const command of analysis.commands) await unwrap(command.argv, out, depth);
  return out;
}

async function unwrap(argv: string[], out: RunInventory, depth: number): Promise<void> {
  if (depth > MAX_DEPTH || argv.length === 0) {
    out.unknown = true;
    return;
  }
  const name = path.basename(argv[0]!);
  const args = argv.slice(1);
  out.commands.push([name, ...args]);
  if (name === 'eval') return nestedLine(args.join(' '), out, depth);
  if (name === 'source' || name === '.') {
    out.unknown = true;
    return;
  }
  if (SHELLS.has(name)) {
    const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    if (c === -1 || args[c + 1] === undefined) {
      if (args.some((a) => !a.startsWith('-'))) out.unknown = true; // `bash script.sh`
      return;
    }
    return nestedLine(args[c + 1]!, out, depth);
  }
  if (name === 'find') {
    if (args.includes('-delete')) out.commands.push(['rm', ...args]);
    for (let i = 0; i < args.length; i++) {
      if (!FIND_EXEC.has(args[i]!)) continue;
      const end = args.findIndex((a, j) => j > i && (a === ';' || a === '+'));
      await unwrap(args.slice(i + 1, end === -1 ? undefined : end), out, depth + 1);
    }
    return;
  }
  const valued = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (!valued) return;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (name === 'env' && /^[A-Za-z_]\w*=/.test(arg)) continue;
    if (name === 'env' && (arg === '-S' || arg.startsWith('--split-string'))) {
      out.unknown = true;
      return;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    if (valued.has(arg)) i++;
  }
  if (FIRST_OPERAND_SKIPPED.has(name)) i++;
  const inner = args.slice(i);
  if (inner.length === 0) return; // `env`, `time`, `xargs` alone: nothing else runs (xargs runs echo)
  await unwrap(inner, out, depth + 1);
}

async function nestedLine(line: string, out: RunInventory, depth: number): Promise<void> {
  const inner = await inventory(await analyzeShell(line), depth + 1);
  out.commands.push(...inner.commands);
  if (inner.unknown) out.unknown = true;
}
