/**
 * The first difference between a recorded value and the one a replay produced, said so a person sees it at once: the
 * JSON path, and both values (long texts cut to a window around the first character that differs).
 */
import { isArray, isRecord } from '../../process/guards.ts';

/** Where two values first differ, and how much of them was equal before it (to rank candidates). */
export interface Difference {
  /** `messages[2].content[0].text` */
  path: string;
  recorded: unknown;
  current: unknown;
  /** Leaves (and object keys) found equal before the difference. */
  matched: number;
}

const MISSING = Symbol('missing');

/** The first difference, walking objects in the recorded value's key order (then the keys only `current` has). */
export function firstDifference(recorded: unknown, current: unknown): Difference | undefined {
  let matched = 0;
  const walk = (a: unknown, b: unknown, path: string): Difference | undefined => {
    if (a === b) {
      matched++;
      return undefined;
    }
    const kindA = kindOf(a);
    if (kindA !== kindOf(b) || (kindA !== 'array' && kindA !== 'object')) {
      if (typeof a === 'string' && typeof b === 'string') matched += commonPrefix(a, b) / 64;
      return { path: path || '(the whole value)', recorded: a, current: b, matched };
    }
    if (isArray(a) && isArray(b)) {
      const [x, y] = [a, b];
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const found = walk(i < x.length ? x[i] : MISSING, i < y.length ? y[i] : MISSING, `${path}[${i}]`);
        if (found) return found;
      }
      return undefined;
    }
    if (!isRecord(a) || !isRecord(b)) return undefined; // both objects (kindOf above)
    const [x, y] = [a, b];
    const keys = [...Object.keys(x), ...Object.keys(y).filter((k) => !Object.hasOwn(x, k))];
    for (const key of keys) {
      const at = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path ? `${path}.` : ''}${key}` : `${path}[${JSON.stringify(key)}]`;
      const found = walk(Object.hasOwn(x, key) ? x[key] : MISSING, Object.hasOwn(y, key) ? y[key] : MISSING, at);
      if (found) return found;
      matched++;
    }
    return undefined;
  };
  return walk(recorded, current, '');
}

function kindOf(value: unknown): string {
  if (value === MISSING) return 'missing';
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : typeof value;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const WINDOW = 60;

/** One value as shown in a difference: JSON, long texts cut around `at`. */
function shown(value: unknown, at: number): string {
  if (value === MISSING) return '(nothing)';
  if (typeof value !== 'string') {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 2 * WINDOW ? `${text.slice(0, 2 * WINDOW)}…` : text;
  }
  const start = Math.max(0, at - WINDOW);
  const end = Math.min(value.length, at + WINDOW);
  return `${start > 0 ? '…' : ''}${JSON.stringify(value.slice(start, end))}${end < value.length ? '…' : ''}`;
}

/** "at messages[0].content: tape has … / this run has …", on three lines. */
export function describeDifference(difference: Difference): string {
  const { recorded, current } = difference;
  const at = typeof recorded === 'string' && typeof current === 'string' ? commonPrefix(recorded, current) : 0;
  return [
    `first difference at ${difference.path}:`,
    `  tape:     ${shown(recorded, at)}`,
    `  this run: ${shown(current, at)}`,
  ].join('\n');
}
