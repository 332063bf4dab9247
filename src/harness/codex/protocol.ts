/**
 * What the Codex harness reads of `codex app-server` (codex-cli 0.169.0's v2 protocol: `codex
 * app-server generate-ts`), as zod schemas checked where the frames enter: the params of the
 * notifications and server requests it translates. Only the fields it uses are declared; the rest
 * pass (a newer codex must not break it). A frame that does not fit is reported once per method
 * and skipped.
 */
import { z } from 'zod';

const nullish = <T extends z.ZodType>(schema: T) => schema.nullish();

/** One changed file of a `fileChange` item. */
export const FileUpdateChange = z.object({
  path: z.string(),
  kind: z.object({ type: z.enum(['add', 'delete', 'update']) }),
  diff: z.string().default(''),
});

/** A thread item: the fields of every type the harness translates (the others pass by `type`). */
export const ThreadItem = z.looseObject({
  type: z.string(),
  id: z.string(),
  text: nullish(z.string()),
  summary: nullish(z.array(z.string())),
  content: z.unknown().optional(),
  command: nullish(z.string()),
  status: nullish(z.string()),
  aggregatedOutput: nullish(z.string()),
  exitCode: nullish(z.number()),
  changes: nullish(z.array(FileUpdateChange)),
  server: nullish(z.string()),
  tool: nullish(z.string()),
  arguments: z.unknown().optional(),
  result: nullish(z.looseObject({ content: z.array(z.unknown()).default([]) })),
  error: nullish(z.object({ message: z.string() })),
  query: nullish(z.string()),
});
export type ThreadItem = z.infer<typeof ThreadItem>;

const Ids = { threadId: z.string(), turnId: z.string() };

export const ItemNotification = z.object({ ...Ids, item: ThreadItem });
export const DeltaNotification = z.object({ ...Ids, itemId: z.string(), delta: z.string() });
export const PlanNotification = z.object({
  ...Ids,
  plan: z.array(z.object({ step: z.string(), status: z.enum(['pending', 'inProgress', 'completed']) })),
});
const Breakdown = z.object({
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  cacheWriteInputTokens: z.number().default(0),
  outputTokens: z.number(),
});
export const TokenUsageNotification = z.object({ ...Ids, tokenUsage: z.object({ last: Breakdown }) });
export const ErrorNotification = z.object({
  error: z.object({ message: z.string() }),
  willRetry: z.boolean(),
  turnId: z.string().optional(),
});
export const TurnNotification = z.object({
  threadId: z.string(),
  turn: z.object({
    id: z.string(),
    status: z.enum(['completed', 'interrupted', 'failed', 'inProgress']),
    error: nullish(z.object({ message: z.string() })),
  }),
});

export const CommandApprovalParams = z.object({
  ...Ids,
  itemId: z.string(),
  command: nullish(z.string()),
  reason: nullish(z.string()),
});
export const FileChangeApprovalParams = z.object({ ...Ids, itemId: z.string(), reason: nullish(z.string()) });

export const ThreadResponse = z.object({ thread: z.object({ id: z.string() }), model: z.string() });
export const TurnStartResponse = z.object({ turn: z.object({ id: z.string() }) });
