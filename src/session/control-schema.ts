/**
 * The schema of the client's `initialize` control request, checked where it enters (the
 * `initialize` handler): a malformed request gets an error response naming the field, and the
 * session goes on. zod loads lazily: `import()` this module.
 */
import { errorMessage } from '../process/errors.ts';
import { z } from 'zod';
import { issuesOf } from '../messages/issues.ts';
import type { SDKHookCallbackMatcher } from '../messages/control.ts';
import type { McpServerConfig } from '../tools/mcp/config.ts';
import { parseMcpServers } from '../tools/mcp/config-schema.ts';

/** `{name: config}` of MCP servers, through the one MCP config schema. */
const McpServers = z.record(z.string(), z.unknown()).transform((raw, ctx): Record<string, McpServerConfig> => {
  try {
    return parseMcpServers(raw, 'mcpServers');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: errorMessage(error) });
    return z.NEVER;
  }
});

const HookCallbackMatcherSchema = z.object({
  matcher: z.string().optional(),
  hookCallbackIds: z.array(z.string()),
  timeout: z.number().positive().optional(),
  onFailure: z.enum(['continue', 'block']).optional(),
}) satisfies z.ZodType<SDKHookCallbackMatcher>;

export const InitializeRequestSchema = z.looseObject({
  subtype: z.literal('initialize'),
  hooks: z.record(z.string(), z.array(HookCallbackMatcherSchema)).optional(),
  sdkMcpServers: z.array(z.string()).optional(),
  mcpServers: McpServers.optional(),
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  /** A replacement system prompt (a list is joined), or Claude Code's preset (kept, with its `append`). */
  systemPrompt: z
    .union([
      z.string(),
      z.array(z.string()),
      z.looseObject({ type: z.literal('preset'), append: z.string().optional() }),
    ])
    .optional(),
  appendSystemPrompt: z.string().optional(),
  /** Checked by `validateAgents` (shared with `--agents`). */
  agents: z.record(z.string(), z.unknown()).optional(),
  /**
   * `settingsViaInitialize`: the SDK's `settings` option (a file path, JSON text or an object), applied as the flag
   * layer.
   */
  settings: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  /** `disallowedToolsViaInitialize`: deny rules, as `--disallowedTools`. */
  disallowedTools: z.array(z.string()).optional(),
  /** The session's title (the SDK's `title` option). */
  title: z.string().optional(),
});
export type InitializeRequest = z.infer<typeof InitializeRequestSchema>;

/** The `initialize` request, checked; throws an Error naming the fields that are wrong. */
export function parseInitialize(request: unknown): InitializeRequest {
  const parsed = InitializeRequestSchema.safeParse(request);
  if (!parsed.success) throw new Error(`initialize: ${issuesOf(parsed.error)}`);
  return parsed.data;
}
