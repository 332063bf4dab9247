/**
 * The schema of what a hook answers (Claude Code's `SyncHookJSONOutput`): a command hook's JSON
 * stdout, a library callback's return value, an SDK client's `hook_callback` answer. Fields are
 * checked; unknown fields are kept. zod loads lazily: import this module with `import()`.
 */
import { z } from 'zod';
import { issuesOf } from '../../messages/issues.ts';
import type { HookOutput } from './types.ts';

export const HookOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
      updatedToolOutput: z.unknown().optional(),
    })
    .optional(),
}) satisfies z.ZodType<HookOutput>;

/** A hook's answer as HookOutput, or the reason it is not one. */
export function parseHookOutput(value: unknown): { ok: true; output: HookOutput } | { ok: false; error: string } {
  const parsed = HookOutputSchema.safeParse(value);
  return parsed.success ? { ok: true, output: parsed.data } : { ok: false, error: issuesOf(parsed.error) };
}
