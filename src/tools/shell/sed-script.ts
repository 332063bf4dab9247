/**
 * Whether a sed script may read, write or run what the line does not name: the commands `r`, `R`
 * (read a file), `w`, `W` (write one), `e` (run a command) and the `s` flags `e` and `w`
 * (`sed '1r .env' a.txt`, `sed '1e cat .env' a.txt`). The script is read command by command as GNU
 * sed reads it; anything this reading does not know counts as such a command (a false match asks).
 */

/** Commands that take no argument (or an optional number), and read or run nothing. */
const PLAIN = new Set([...'=dDgGhHlLnNpPqQxz{}']);
/** Commands whose argument runs to the end of the line: text (`a`, `i`, `c`), a label (`:`, `b`, `t`), `v`, `#`. */
const TO_LINE_END = new Set([...'aic:btTv#']);
/** Commands that read or write a file, or run one. */
const OUTSIDE = new Set([...'rRwWeF']);

/** The index just past the text that ends at the next unescaped `delim` from `i`, or -1. */
function skipDelimited(script: string, i: number, delim: string): number {
  for (let j = i; j < script.length; j++) {
    if (script[j] === '\\') j++;
    else if (script[j] === delim) return j + 1;
  }
  return -1;
}

/** The index past the address (numbers, `$`, `/re/`, `\cREc`, `first~step`, `addr,+N`) at `i`, or -1. */
function skipAddress(script: string, start: number): number {
  let i = start;
  for (;;) {
    const c = script[i];
    if (c === '/') i = skipDelimited(script, i + 1, '/');
    else if (c === '\\' && i + 1 < script.length) i = skipDelimited(script, i + 2, script[i + 1]!);
    else if (c !== undefined && /[\d$~+]/.test(c)) i++;
    else return i;
    if (i === -1) return -1;
    while (script[i] === 'I' || script[i] === 'M') i++;
    if (script[i] === ',') i++;
  }
}

/** True when the sed script may read, write or run something (see the module comment). */
export function sedScriptReachesOut(script: string): boolean {
  let i = 0;
  while (i < script.length) {
    while (i < script.length && /[\s;]/.test(script[i]!)) i++;
    if (i >= script.length) return false;
    i = skipAddress(script, i);
    if (i === -1) return true;
    while (script[i] === ' ' || script[i] === '!') i++;
    const command = script[i++];
    if (command === undefined) return false;
    if (OUTSIDE.has(command)) return true;
    if (command === 's' || command === 'y') {
      const delim = script[i];
      if (delim === undefined || delim === '\n' || delim === '\\') return true;
      i = skipDelimited(script, i + 1, delim);
      if (i !== -1) i = skipDelimited(script, i, delim);
      if (i === -1) return true;
      const flags = /^[0-9gpiImMew]*/.exec(script.slice(i))![0];
      if (command === 's' && /[ew]/.test(flags)) return true;
      i += flags.length;
    } else if (TO_LINE_END.has(command)) {
      while (i < script.length && script[i] !== '\n') i += script[i] === '\\' ? 2 : 1;
    } else if (PLAIN.has(command)) {
      while (i < script.length && /\d/.test(script[i]!)) i++;
    } else return true;
  }
  return false;
}

/** True when `name` (after `--`, before `=`) is GNU sed's long option `full` or an abbreviation of it. */
const isLong = (arg: string, full: string) => {
  const name = arg.slice(2).split('=')[0]!;
  return arg.startsWith('--') && name.length > 0 && full.startsWith(name);
};

/** A sed argv's inline scripts (`-e S`, `--expression=S`, or the first operand); whether it reads a script file. */
export function sedScripts(args: string[]): { scripts: string[]; fromFile: boolean } {
  const scripts: string[] = [];
  const operands: string[] = [];
  let fromFile = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = () => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : (args[++i] ?? ''));
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    } else if (isLong(a, 'expression')) scripts.push(value());
    else if (isLong(a, 'file')) fromFile = true;
    else if (isLong(a, 'line-length')) value();
    else if (/^-[nrsuzE]*[ef]/.test(a)) {
      const at = a.search(/[ef]/);
      if (a[at] === 'f') fromFile = true;
      else scripts.push(a.length > at + 1 ? a.slice(at + 1) : (args[++i] ?? ''));
    } else if (/^-[nrsuzE]*l$/.test(a)) i++;
    else if (!a.startsWith('-') || a === '-') operands.push(a);
  }
  if (scripts.length === 0 && !fromFile && operands[0] !== undefined) scripts.push(operands[0]);
  return { scripts, fromFile };
}
