/**
 * Gemini CLI's `--output-format stream-json` events (its `JsonStreamEventType`: init, message, tool_use, tool_result,
 * error, result; packages/core/src/output/types.ts), declared once as a union with a zod schema and parsed where a
 * line enters (gemini.ts). Fields are read leniently: one of an unexpected type reads as absent, so a newer CLI does
 * not lose a prompt over it; an event of another type is not in the union and is reported by the translator.
 */
import { z } from 'zod';
import { lenient, lenientEntries, lenientFlag, lenientNumber, lenientRecord, lenientText } from './lenient.ts';

const text = lenientText;
const count = lenientNumber;

/** Token counts of a run, or of one model in `models`. */
const GeminiCountsSchema = z.looseObject({
  /** Gemini's input tokens include the cached ones. */
  input_tokens: count,
  output_tokens: count,
  cached: count,
  /** The uncached input, where the CLI reports it. */
  input: count,
});
export type GeminiCounts = z.infer<typeof GeminiCountsSchema>;

const GeminiStatsSchema = GeminiCountsSchema.extend({
  models: lenientEntries(GeminiCountsSchema),
});

const ErrorSchema = lenient(z.looseObject({ type: text, message: text }));

/** One event of the stream. */
export const GeminiEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('init'), session_id: text, model: text }),
  z.looseObject({
    type: z.literal('message'),
    role: text,
    content: text,
    delta: lenientFlag,
  }),
  z.looseObject({ type: z.literal('tool_use'), tool_name: text, tool_id: text, parameters: lenientRecord }),
  z.looseObject({ type: z.literal('tool_result'), tool_id: text, status: text, output: text, error: ErrorSchema }),
  z.looseObject({ type: z.literal('error'), severity: text, message: text }),
  z.looseObject({
    type: z.literal('result'),
    status: text,
    error: ErrorSchema,
    stats: lenient(GeminiStatsSchema),
  }),
]);
export type GeminiEvent = z.infer<typeof GeminiEventSchema>;
export type GeminiEventOf<T extends GeminiEvent['type']> = Extract<GeminiEvent, { type: T }>;
