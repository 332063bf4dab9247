/**
 * The words bash makes of an unquoted glob before a program sees them, so the program's
 * arguments are judged as it gets them: `rg hello *` in a folder holding a file named `--pre=sh`
 * is `rg hello --pre=sh …`, and a `*` before `/f.txt` reads through every symlinked folder it matches.
 * Bash's defaults for `bash -c`: `*`, `?` and `[…]` match within one path component, never a
 * leading dot unless the pattern has one there, a pattern that matches nothing stays as it is
 * (no nullglob, no failglob, no extglob, no globstar). Where bash could match more than this
 * reading (a dot pattern that older bash lets match `.` and `..`, a character class), the set
 * returned is the larger one. Brace expansion (`{a,b}`, `{1..3}`) is not evaluated: undefined.
 */
import { lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** At most this many file names read, and this many words made, per pattern: past it, unknown. */
const MAX_ENTRIES = 20_000;
const MAX_WORDS = 1_000;

/** `\x` → `x`: the word a pattern that matches nothing stays as. */
export const unescape = (pattern: string) => pattern.replace(/\\([\s\S])/g, '$1');

/** True when `text` has an unescaped character of `set`. */
function hasUnescaped(text: string, set: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (set.includes(text[i]!)) return true;
  }
  return false;
}

/** True when the pattern holds a brace expansion: `{…}` with a top-level comma or a `..` sequence. */
function hasBraceExpansion(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') {
      i++;
      continue;
    }
    if (pattern[i] !== '{') continue;
    let depth = 0;
    for (let j = i; j < pattern.length; j++) {
      if (pattern[j] === '\\') j++;
      else if (pattern[j] === '{') depth++;
      else if (pattern[j] === '}' && --depth === 0) {
        const inner = pattern.slice(i + 1, j);
        if (hasUnescaped(inner, ',') || /^[^.]*[^\\]\.\.[^.]/.test(inner)) return true;
        break;
      }
    }
  }
  return false;
}

/** The words bash makes of `pattern` (see the module comment) in folder `dir`; undefined when unknown. */
export function expandPattern(pattern: string, dir: string): string[] | undefined {
  if (hasBraceExpansion(pattern)) return undefined;
  if (!hasUnescaped(pattern, '*?[')) return [unescape(pattern)];
  const segments = pattern.split('/');
  let found: string[] = [pattern.startsWith('/') ? '/' : ''];
  const budget = { entries: MAX_ENTRIES };
  for (let s = pattern.startsWith('/') ? 1 : 0; s < segments.length; s++) {
    const segment = segments[s]!;
    const last = s === segments.length - 1;
    if (segment === '') continue;
    const next: string[] = [];
    for (const prefix of found) {
      const names = hasUnescaped(segment, '*?[')
        ? matches(segment, path.resolve(dir, prefix || '.'), budget)
        : [unescape(segment)];
      if (!names) return undefined;
      for (const name of names) {
        const word = prefix === '' ? name : prefix.endsWith('/') ? prefix + name : `${prefix}/${name}`;
        // The last component matches any name the folder lists, a dangling symlink too (bash does not
        // follow it); a folder on the way must be one to descend into.
        const file = path.resolve(dir, word);
        const info = last
          ? lstatSync(file, { throwIfNoEntry: false })
          : statSync(file, { throwIfNoEntry: false })?.isDirectory();
        if (info) next.push(word);
      }
      if (next.length > MAX_WORDS) return undefined;
    }
    found = next;
    if (!found.length) return [unescape(pattern)];
  }
  return found.length ? found : [unescape(pattern)];
}

/** The names in `folder` the component pattern may match; undefined past the budget or for a class not read here. */
function matches(segment: string, folder: string, budget: { entries: number }): string[] | undefined {
  const regex = segmentRegex(segment);
  if (!regex) return undefined;
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  budget.entries -= entries.length;
  if (budget.entries < 0) return undefined;
  // A pattern with a leading dot: older bash (and sh) let it match `.` and `..` too.
  const dotted = segment.startsWith('.') || segment.startsWith('\\.');
  const names = dotted ? ['.', '..', ...entries] : entries;
  return names.filter((name) => (!name.startsWith('.') || dotted) && regex.test(name));
}

/** A regular expression for one path component's pattern, or undefined for what it does not read. */
function segmentRegex(segment: string): RegExp | undefined {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (ch === '\\') source += escapeRegex(segment[++i] ?? '\\');
    else if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else if (ch === '[') {
      const bracket = bracketExpression(segment, i);
      if (bracket === null) return undefined;
      if (bracket === undefined) source += '\\[';
      else {
        source += bracket.source;
        i = bracket.end;
      }
    } else source += escapeRegex(ch);
  }
  return new RegExp(`^${source}$`, 'su');
}

const CLASSES: Record<string, string> = {
  alpha: '\\p{L}',
  digit: '0-9',
  alnum: '\\p{L}\\p{N}',
  upper: '\\p{Lu}',
  lower: '\\p{Ll}',
  space: '\\s',
  blank: ' \\t',
  punct: '\\p{P}\\p{S}',
  print: '\\P{C}',
  graph: '\\P{C}',
  cntrl: '\\p{Cc}',
  xdigit: '0-9A-Fa-f',
  word: '\\w',
};

/**
 * The bracket expression starting at `segment[start]` (`[abc]`, `[!a-z]`, `[[:alpha:]]`): its
 * regex source and last index; undefined when the bracket does not close (a literal `[`), null
 * for what is not read here (equivalence classes, collating symbols, unknown classes).
 */
function bracketExpression(segment: string, start: number): { source: string; end: number } | undefined | null {
  let i = start + 1;
  let negate = false;
  if (segment[i] === '!' || segment[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  for (let first = true; i < segment.length; i++, first = false) {
    const ch = segment[i]!;
    if (ch === ']' && !first) return { source: `[${negate ? '^' : ''}${body}]`, end: i };
    if (ch === '[' && segment[i + 1] === ':') {
      const close = segment.indexOf(':]', i + 2);
      const name = close === -1 ? undefined : segment.slice(i + 2, close);
      if (name === undefined || !Object.hasOwn(CLASSES, name)) return null;
      body += CLASSES[name];
      i = close + 1;
    } else if (ch === '[' && (segment[i + 1] === '=' || segment[i + 1] === '.')) return null;
    else if (ch === '\\') body += escapeClass(segment[++i] ?? '\\');
    else if (ch === '-' && !first && segment[i + 1] !== ']') body += '-';
    else body += escapeClass(ch);
  }
  return undefined;
}

/** Escapes for outside a character class, and inside one (the regexes are in unicode mode: no other escapes). */
const escapeRegex = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
const escapeClass = (s: string) => s.replace(/[\\\]\[^-]/g, '\\$&');
