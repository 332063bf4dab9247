/**
 * The shape of a read-only verdict and the helper that builds a program's check from its options
 * (read-only.ts holds the list of programs).
 */
import { parseArgs, type Arity, type OptionSpec, type ParsedArgs } from './options.ts';

/** What a read-only command reads, for the path and deny checks. */
export interface ReadOnlyUse {
  /** Words that may name files it reads (operands and option values, generously), as written. */
  paths: string[];
  /** Folders whose every file it reads (grep -r, rg, diff -r). */
  roots: string[];
  /** Folders it walks for names only (find, ls -R, du, tree): outside ones ask; Read deny rules do not bind names. */
  listed?: string[];
  /** It runs git: the repository's config is checked; `content` when it may print any file's contents. */
  git?: { content: boolean };
}

/** Why a command is not known to be read-only. */
export interface Refusal {
  refused: string;
}

export type ReadOnlyVerdict = ReadOnlyUse | Refusal;

/** Judges one program's arguments (argv without the program name). */
export type Program = (args: string[]) => ReadOnlyVerdict;

/** How a program reads, beyond its options. */
export interface Reading {
  /** Its operands are not file names (echo's words, tr's sets, basename's strings). */
  noPaths?: boolean;
  /** The folders whose files it reads, from its parsed arguments. */
  roots?: (parsed: ParsedArgs) => string[];
  /** The folders it walks for names only. */
  listed?: (parsed: ParsedArgs) => string[];
  /** A further condition: why these arguments are not read-only, if they are not. */
  refuse?: (parsed: ParsedArgs) => string | undefined;
}

/** A program whose read-only uses are the options of `spec` (and the conditions of `how`). */
export function reads(spec: OptionSpec, how: Reading = {}): Program {
  return (args) => {
    const parsed = parseArgs(args, spec);
    if ('refused' in parsed) return parsed;
    const refused = how.refuse?.(parsed);
    if (refused) return { refused };
    const values = parsed.options.flatMap((o) => (o.value === undefined ? [] : [o.value]));
    return {
      paths: how.noPaths ? [] : [...parsed.operands, ...values],
      roots: how.roots?.(parsed) ?? [],
      ...(how.listed ? { listed: how.listed(parsed) } : {}),
    };
  };
}

/** The operands, or `.` when there are none: what a recursive program walks. */
export const operandsOrHere = (parsed: ParsedArgs) => (parsed.operands.length ? parsed.operands : ['.']);

/** `--help` and `--version`, which every GNU program has. */
export const HELP = { help: 'none', version: 'none' } as const;

/** Long option names (space separated) that all take `arity`. */
export const names = (list: string, arity: Arity): Record<string, Arity> =>
  Object.fromEntries(list.split(' ').map((n) => [n, arity]));
