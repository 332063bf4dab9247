/** What the Redis session store reads back, parsed with a schema where it enters. */
import { errorMessage } from '../../process/errors.ts';
import { z } from 'zod';
import { issuesOf } from '../../messages/issues.ts';
import type { StoreEntry, StoreSummary } from '../session-store.ts';

const EntrySchema = z.looseObject({ type: z.string(), uuid: z.string().optional(), timestamp: z.string().optional() });
const SummarySchema = z.object({ sessionId: z.string(), mtime: z.number(), data: z.record(z.string(), z.unknown()) });
/** A ZRANGE WITHSCORES reply: pairs under RESP3, flat (member, score, ...) under RESP2. */
const PairsSchema = z.array(z.tuple([z.string(), z.union([z.string(), z.number()])]));
const FlatSchema = z.array(z.string());

/** JSON of a stored value, with `where` and `what` in the error. */
function json(text: string, where: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: ${what} is not JSON (${errorMessage(error)})`);
  }
}

/** A stored entry: a JSON object with a string `type`. */
export function parseEntry(text: string, where: string): StoreEntry {
  const parsed = EntrySchema.safeParse(json(text, where, 'a stored entry'));
  if (!parsed.success) throw new Error(`${where}: a stored entry is not an object with a string "type"`);
  return parsed.data;
}

/** A stored summary: `{ sessionId, mtime, data }`. */
export function parseSummary(text: string, where: string): StoreSummary {
  const parsed = SummarySchema.safeParse(json(text, where, 'the stored summary'));
  if (!parsed.success) throw new Error(`${where}: the stored summary is not { sessionId, mtime, data }`);
  return parsed.data;
}

/** (member, score) pairs of a ZRANGE WITHSCORES reply. */
export function scored(reply: unknown): Array<[string, number]> {
  let pairs: Array<[string, string | number]>;
  const asPairs = PairsSchema.safeParse(reply);
  if (asPairs.success) pairs = asPairs.data;
  else {
    const flat = FlatSchema.safeParse(reply);
    if (!flat.success) throw new Error(`unexpected ZRANGE reply from Redis (${issuesOf(flat.error)})`);
    pairs = Array.from({ length: Math.floor(flat.data.length / 2) }, (_, i) => [
      flat.data[2 * i]!,
      flat.data[2 * i + 1]!,
    ]);
  }
  return pairs.map(([member, score]) => {
    if (!Number.isFinite(Number(score))) throw new Error('unexpected ZRANGE reply from Redis');
    return [member, Number(score)];
  });
}
