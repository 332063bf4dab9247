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
