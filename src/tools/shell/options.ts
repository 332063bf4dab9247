/**
 * Reads a program's arguments the way its option parser does, against an allow list: GNU
 * getopt_long (short clusters `-abc`, values glued `-n5` or in the next word, `--name=value` or
 * `--name value`, long names shortened to any unique prefix, options after operands, `--` ends
 * them) or an exact parser (ripgrep, git, jq, tree: whole long names only). An option that is not
 * on the allow list, an abbreviation that could mean another option, or a value where none is
 * taken makes the whole command unknown: the caller asks.
 */

/** What a long option takes: nothing, a value (`=v` or the next word), or an optional value (`=v` only). */
export type Arity = 'none' | 'value' | 'optional';

/** The options a read-only use of a program may have. */
export interface OptionSpec {
  /** Short options without a value. */
  flags?: string;
  /** Short options that take a value (the rest of the word, or the next word). */
  valued?: string;
  /** Short options whose value is optional (the rest of the word only). */
  optional?: string;
  /** Allowed long options and what each takes. */
  long?: Readonly<Record<string, Arity>>;
  /** The program's other long options (not allowed): an abbreviation is resolved among all of them. */
  others?: readonly string[];
  /** The parser takes whole long names only (no abbreviations). */
  exact?: boolean;
  /** `-5` means a count (head, tail, git log). */
  numeric?: boolean;
  /** Options end at the first operand (a wrapper's command: `nice -n 5 rm -f x`). */
  stopAtOperand?: boolean;
  /**
   * The parser is not getopt: a short option's value is always the next word and the letters after
   * it in the cluster are read on as options (tree: `-Lo 1 out` is `-L 1 -o out`). Only a cluster
   * that ends with the valued letter is read here.
   */
  valueInNextWord?: boolean;
}

/** One option as the program will read it: a short letter or a long name (resolved), and its value. */
export interface ParsedOption {
  name: string;
  value?: string;
}

/** A command's arguments, read. */
export interface ParsedArgs {
  options: ParsedOption[];
  operands: string[];
}

/** Why an argument list is not known to be read-only. */
export interface ArgsRefusal {
  refused: string;
}

/** Reads `args` (without the program name) with `spec`; a refusal names the word that made it unknown. */
export function parseArgs(args: readonly string[], spec: OptionSpec): ParsedArgs | ArgsRefusal {
  const out: ParsedArgs = { options: [], operands: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      if (spec.stopAtOperand) {
        out.operands.push(...args.slice(i));
        break;
      }
      out.operands.push(arg);
      continue;
    }
    const taken = arg.startsWith('--') ? longOption(arg, args[i + 1], spec) : shortCluster(arg, args[i + 1], spec);
    if ('refused' in taken) return taken;
    out.options.push(...taken.options);
    if (taken.usedNext) i++;
  }
  return out;
}

type Taken = { options: ParsedOption[]; usedNext: boolean } | ArgsRefusal;

function longOption(arg: string, next: string | undefined, spec: OptionSpec): Taken {
  const eq = arg.indexOf('=');
  const written = arg.slice(2, eq === -1 ? undefined : eq);
  const name = resolveLong(written, spec);
  if (name === undefined) return { refused: `${arg}: not an option known to only read` };
  const arity = spec.long![name]!;
  if (eq !== -1) {
    if (arity === 'none') return { refused: `${arg}: --${name} takes no value` };
    return { options: [{ name, value: arg.slice(eq + 1) }], usedNext: false };
  }
  if (arity !== 'value') return { options: [{ name }], usedNext: false };
  if (next === undefined) return { refused: `${arg}: its value is missing` };
  return { options: [{ name, value: next }], usedNext: true };
}

/**
 * The allowed long option `written` names, as the program's parser resolves it: an exact name wins;
 * otherwise (getopt_long only) the one option, of all the program has, that starts with it.
 */
function resolveLong(written: string, spec: OptionSpec): string | undefined {
  const allowed = spec.long ?? {};
  if (Object.hasOwn(allowed, written)) return written;
  if (spec.exact || written === '' || spec.others?.includes(written)) return undefined;
  const candidates = [...Object.keys(allowed), ...(spec.others ?? [])].filter((n) => n.startsWith(written));
  return candidates.length === 1 && Object.hasOwn(allowed, candidates[0]!) ? candidates[0] : undefined;
}

function shortCluster(arg: string, next: string | undefined, spec: OptionSpec): Taken {
  if (spec.numeric && /^-\d+$/.test(arg)) return { options: [{ name: 'count', value: arg.slice(1) }], usedNext: false };
  const options: ParsedOption[] = [];
  for (let j = 1; j < arg.length; j++) {
    const letter = arg[j]!;
    const rest = arg.slice(j + 1);
    if (spec.flags?.includes(letter)) {
      options.push({ name: letter });
      continue;
    }
    if (spec.optional?.includes(letter)) {
      options.push(rest ? { name: letter, value: rest } : { name: letter });
      return { options, usedNext: false };
    }
    if (spec.valued?.includes(letter)) {
      if (rest && spec.valueInNextWord)
        return { refused: `${arg}: -${letter} takes the next word and ${rest} is read on` };
      if (rest) return { options: [...options, { name: letter, value: rest }], usedNext: false };
      if (next === undefined) return { refused: `${arg}: the value of -${letter} is missing` };
      return { options: [...options, { name: letter, value: next }], usedNext: true };
    }
    return { refused: `${arg}: -${letter} is not an option known to only read` };
  }
  return { options, usedNext: false };
}

/** True when any of `names` (short letters or long names) was given. */
export function given(parsed: ParsedArgs, ...names: string[]): boolean {
  return parsed.options.some((o) => names.includes(o.name));
}

/** The values given to any of `names`. */
export function valuesOf(parsed: ParsedArgs, ...names: string[]): string[] {
  return parsed.options.filter((o) => names.includes(o.name) && o.value !== undefined).map((o) => o.value!);
}
