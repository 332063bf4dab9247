/**
 * zod schemas of the params `agentpipe app-server` reads, from the v2 types codex-cli 0.169.0
 * generates (`codex app-server generate-ts`). Only the fields agentpipe uses are checked; other
 * fields pass (new clients must not break the server). A request whose params do not fit is
 * answered -32602 naming the field.
 */
import { z } from 'zod';
import { RpcError } from '../../messages/json-rpc.ts';
import { issuesOf } from '../../messages/issues.ts';
import { APPROVAL_POLICIES, SANDBOX_MODES } from '../permissions.ts';

const nullish = <T extends z.ZodType>(schema: T) => schema.nullish();

/** `AskForApproval`: a policy name, or codex's granular form (agentpipe asks when any part asks). */
export const AskForApproval = z.union([
  z.enum(APPROVAL_POLICIES),
  z.object({ granular: z.record(z.string(), z.boolean()) }),
]);

export const SandboxMode = z.enum(SANDBOX_MODES);

/** `SandboxPolicy` of turn/start. */
export const SandboxPolicy = z.discriminatedUnion('type', [
  z.object({ type: z.literal('dangerFullAccess') }),
  z.object({ type: z.literal('readOnly'), networkAccess: z.boolean().optional() }),
  z.object({ type: z.literal('externalSandbox'), networkAccess: z.unknown().optional() }),
  z.object({
    type: z.literal('workspaceWrite'),
    writableRoots: z.array(z.string()).optional(),
    networkAccess: z.boolean().optional(),
  }),
]);

/** `UserInput`: text, an image by URL, a local image; skills and mentions are refused by name. */
export const UserInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), url: z.string().optional(), fileId: z.string().optional() }),
  z.object({ type: z.literal('localImage'), path: z.string() }),
  z.object({ type: z.literal('audio') }),
  z.object({ type: z.literal('localAudio'), path: z.string() }),
  z.object({ type: z.literal('skill'), name: z.string(), path: z.string() }),
  z.object({ type: z.literal('mention'), name: z.string(), path: z.string() }),
]);

const threadSettings = {
  model: nullish(z.string()),
  modelProvider: nullish(z.string()),
  cwd: nullish(z.string()),
  approvalPolicy: nullish(AskForApproval),
  sandbox: nullish(SandboxMode),
  config: nullish(z.record(z.string(), z.unknown())),
  baseInstructions: nullish(z.string()),
  developerInstructions: nullish(z.string()),
};

export const InitializeParams = z.object({
  clientInfo: z.object({ name: z.string(), title: nullish(z.string()), version: z.string() }),
  capabilities: nullish(
    z.object({
      experimentalApi: z.boolean().optional(),
      optOutNotificationMethods: nullish(z.array(z.string())),
    }),
  ),
});

export const ThreadStartParams = z.object({ ...threadSettings, ephemeral: nullish(z.boolean()) });
export const ThreadResumeParams = z.object({
  threadId: z.string(),
  ...threadSettings,
  excludeTurns: z.boolean().optional(),
});
export const ThreadForkParams = z.object({
  threadId: z.string(),
  ...threadSettings,
  ephemeral: z.boolean().optional(),
  excludeTurns: z.boolean().optional(),
});
export const ThreadListParams = z.object({
  cursor: nullish(z.string()),
  limit: nullish(z.number().int().positive()),
  cwd: nullish(z.union([z.string(), z.array(z.string())])),
  searchTerm: nullish(z.string()),
  sortDirection: nullish(z.enum(['asc', 'desc'])),
});
export const ThreadReadParams = z.object({ threadId: z.string(), includeTurns: z.boolean().optional() });

export const TurnStartParams = z.object({
  threadId: z.string(),
  input: z.array(UserInput),
  clientUserMessageId: nullish(z.string()),
  cwd: nullish(z.string()),
  approvalPolicy: nullish(AskForApproval),
  sandboxPolicy: nullish(SandboxPolicy),
  model: nullish(z.string()),
  effort: nullish(z.string()),
  outputSchema: nullish(z.record(z.string(), z.unknown())),
});
export const TurnSteerParams = z.object({
  threadId: z.string(),
  input: z.array(UserInput),
  expectedTurnId: z.string(),
  clientUserMessageId: nullish(z.string()),
});
export const TurnInterruptParams = z.object({ threadId: z.string(), turnId: z.string() });

export const ModelListParams = z.object({
  cursor: nullish(z.string()),
  limit: nullish(z.number().int().positive()),
  includeHidden: nullish(z.boolean()),
});
export const ConfigReadParams = z.object({ includeLayers: z.boolean().optional(), cwd: nullish(z.string()) });
export const McpServerStatusListParams = z.object({
  cursor: nullish(z.string()),
  limit: nullish(z.number().int().positive()),
  threadId: nullish(z.string()),
  serverName: nullish(z.string()),
});

/** The decision of an approval request (the client's answer). */
export const CommandApprovalResponse = z.object({
  decision: z.union([
    z.enum(['accept', 'acceptForSession', 'decline', 'cancel']),
    z.object({ acceptWithExecpolicyAmendment: z.object({ execpolicy_amendment: z.array(z.string()) }) }),
    z.object({ applyNetworkPolicyAmendment: z.unknown() }),
  ]),
});
export const FileChangeApprovalResponse = z.object({
  decision: z.enum(['accept', 'acceptForSession', 'decline', 'cancel']),
});
export const ElicitationResponse = z.object({ action: z.enum(['accept', 'decline', 'cancel']) });

/** Parses params; missing params count as `{}`; a mismatch is -32602 naming the field. */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown, method: string): z.infer<T> {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  throw RpcError.invalidParams(`Invalid params for ${method}: ${issuesOf(parsed.error)}`);
}
