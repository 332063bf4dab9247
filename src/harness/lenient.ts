/**
 * zod pieces for reading what a wrapped CLI writes leniently: a field of an unexpected type reads as absent (or
 * empty), so a newer CLI's change to one field does not lose the event it is in. Used by the declared event schemas
 * (claude-events.ts, gemini-events.ts).
 */
import { z } from 'zod';

/** `schema`'s value, or undefined when the field is absent or of another shape. */
export function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(() => undefined); // zod's catch: the field reads as absent
}

/** A string, or undefined for anything else. */
export const lenientText = lenient(z.string());
/** A finite number, or undefined for anything else. */
export const lenientNumber = lenient(z.number().refine(Number.isFinite));
/** A boolean, or undefined for anything else. */
export const lenientFlag = lenient(z.boolean());
/** An object of any fields, or undefined for anything else. */
export const lenientRecord = lenient(z.record(z.string(), z.unknown()));
/** The strings of an array (other items dropped), or undefined when it is no array. */
export const lenientStrings = lenient(
  z.array(z.unknown()).transform((items) => items.filter((item) => typeof item === 'string')),
);

/** The `[key, value]` entries of an object whose value `schema` reads (others dropped); empty when it is no object. */
export function lenientEntries<T extends z.ZodType>(schema: T) {
  return z
    .record(z.string(), z.unknown())
    .transform((record) =>
      Object.entries(record).flatMap(([key, value]) => {
        const parsed = schema.safeParse(value);
        const entry: [string, z.output<T>] | undefined = parsed.success ? [key, parsed.data] : undefined;
        return entry ? [entry] : [];
      }),
    )
    .catch(() => []);
}
