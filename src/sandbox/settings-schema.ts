/** The schema of the `sandbox` settings block (zod loads only when a settings layer has one). */
import { z } from 'zod';
import { issuesOf } from '../messages/issues.ts';
import type { SandboxLayer, SandboxSettings } from './config.ts';

const Strings = z.array(z.string());

/** One entry of `credentials.envVars` or `credentials.files` (Claude Code's shape). */
const Entry = z.looseObject({
  mode: z.enum(['deny', 'mask']),
  extract: z.string().optional(),
  onExtractNoMatch: z.enum(['deny', 'error', 'warn']).optional(),
  injectHosts: Strings.optional(),
});

/** The keys agentpipe reads; the rest of Claude Code's block passes through unread. */
const Block = z.looseObject({
  enabled: z.boolean().optional(),
  failIfUnavailable: z.boolean().optional(),
  autoAllowBashIfSandboxed: z.boolean().optional(),
  allowUnsandboxedCommands: z.boolean().optional(),
  excludedCommands: Strings.optional(),
  bwrapPath: z.string().optional(),
  network: z
    .looseObject({
      allowedDomains: Strings.optional(),
      deniedDomains: Strings.optional(),
      allowAllUnixSockets: z.boolean().optional(),
      allowLocalBinding: z.boolean().optional(),
    })
    .optional(),
  credentials: z
    .looseObject({
      envVars: z.array(Entry.extend({ name: z.string().min(1) })).optional(),
      files: z.array(Entry.extend({ path: z.string().min(1) })).optional(),
      allowPlaintextInject: z.boolean().optional(),
    })
    .optional(),
  filesystem: z
    .looseObject({
      allowWrite: Strings.optional(),
      denyWrite: Strings.optional(),
      denyRead: Strings.optional(),
      allowRead: Strings.optional(),
    })
    .optional(),
});

/** Validates one layer's block; throws an error naming the layer and the field. */
export function parseBlock(layer: SandboxLayer): SandboxSettings {
  const parsed = Block.safeParse(layer.block);
  if (!parsed.success) throw new Error(`${layer.label}: sandbox: ${issuesOf(parsed.error)}`);
  return parsed.data;
}
