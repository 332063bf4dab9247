/**
 * The type guards every layer uses on data from outside before (or instead of) a schema: one definition each, so a
 * guard means the same everywhere.
 */

/** A plain object (not null, not an array), its fields still unknown. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` when it is a string, else undefined. */
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** `value` when it is a finite number, else undefined. */
export const finite = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** An array, its items still unknown (`Array.isArray` alone narrows to `any[]`). */
export const isArray = (value: unknown): value is unknown[] => Array.isArray(value);

/** Whether `value` is one of `list`'s literals (permission modes, signal names...): narrows it to their union. */
export function isOneOf<T extends string | number>(list: readonly T[], value: unknown): value is T {
  return list.some((item) => item === value);
}

/** Whether `key` is an own field of `object`: narrows a string to the object's keys (a lookup table's names). */
export function isKeyOf<T extends object>(object: T, key: PropertyKey): key is keyof T {
  return Object.hasOwn(object, key);
}
