/**
 * The session options that can travel as data (a cluster job carries them from a front end or a
 * library query to a worker), as one schema checked against `SessionOptions` (options.ts) by the
 * compiler: every option is either in the schema with its type, or named here as one that cannot
 * travel; an option added to `SessionOptions` and to neither fails the type check. Values are
 * checked for their JSON shape here; the session checks their meaning when it opens, as for any
 * entry point. zod loads only with the cluster (this module is not on the print path).
 */
import { z } from 'zod';
import { HARNESS_NAMES, type HarnessName } from '../harness/types.ts';
import type { SandboxSettings } from '../sandbox/config.ts';
import { SANDBOX_MODES, type SandboxMode } from '../sandbox/config.ts';
import type { SessionOptions } from './options.ts';
import { isOutcomePolicyName, OUTCOME_POLICIES, type OutcomePolicyName } from '../agent/outcome-policy.ts';
import { isRecord } from '../process/guards.ts';

/** A JSON object typed as the option's type (its fields are the session's to check). */
const object = <T>() => z.custom<T>(isRecord, { message: 'expected an object' });
/** A string typed as the option's union (its value is the session's to check). */
const text = <T extends string>() => z.custom<T>((v) => typeof v === 'string', { message: 'expected a string' });
const strings = z.array(z.string());

/** Every session option that can travel as data, with its JSON shape. */
export const SerializableOptionsSchema = z.strictObject({
  harness: z.custom<HarnessName>((v) => HARNESS_NAMES.some((name) => name === v), {
    message: `expected one of ${HARNESS_NAMES.join(', ')}`,
  }),
  harnessCommand: z.string(),
  cwd: z.string(),
  model: z.string(),
  provider: text<NonNullable<SessionOptions['provider']>>(),
  baseUrl: z.string(),
  script: z.string(),
  systemPrompt: z.string(),
  appendSystemPrompt: z.string(),
  maxTurns: z.number(),
  maxBudgetUsd: z.number(),
  maxTokens: z.number(),
  maxThinkingTokens: z.number(),
  allowedTools: strings,
  disallowedTools: strings,
  tools: strings,
  permissionMode: text<NonNullable<SessionOptions['permissionMode']>>(),
  includePartialMessages: z.boolean(),
  includeHookEvents: z.boolean(),
  settings: z.union([z.string(), z.record(z.string(), z.unknown())]),
  agents: object<NonNullable<SessionOptions['agents']>>(),
  mcpServers: object<NonNullable<SessionOptions['mcpServers']>>(),
  toolProgressThresholdMs: z.number(),
  toolProgressIntervalMs: z.number(),
  maxRetries: z.number(),
  outcomePolicy: z.custom<OutcomePolicyName>(isOutcomePolicyName, {
    message: `expected one of ${OUTCOME_POLICIES.join(', ')}`,
  }),
  sessionMirror: z.boolean(),
  maxContextTokens: z.number(),
  outputFormat: object<NonNullable<SessionOptions['outputFormat']>>(),
  maxStructuredOutputRetries: z.number(),
  apiKeyHelper: z.string(),
  fallbackModel: z.string(),
  effort: text<NonNullable<SessionOptions['effort']>>(),
  thinking: object<NonNullable<SessionOptions['thinking']>>(),
  betas: strings,
  additionalDirectories: strings,
  settingSources: z.array(text<NonNullable<SessionOptions['settingSources']>[number]>()),
  trustProject: z.boolean(),
  strictMcpConfig: z.boolean(),
  agent: z.string(),
  // The sandbox of the commands goes where they run (a front end's --sandbox required holds on its workers).
  sandbox: z.union([
    z.custom<SandboxMode>((v) => SANDBOX_MODES.some((mode) => mode === v), {
      message: `expected one of ${SANDBOX_MODES.join(', ')} or a sandbox settings object`,
    }),
    object<SandboxSettings>(),
  ]),
  debug: z.union([z.boolean(), z.string()]),
  debugFile: z.string(),
});

/** The options that set the session's own identity and history: a cluster keeps those itself. */
export const CLUSTER_OWNED_OPTIONS = [
  'sessionId',
  'resume',
  'continue',
  'forkSession',
  'resumeSessionAt',
  'resumeDropsTurn',
] as const satisfies ReadonlyArray<keyof SessionOptions>;

/** The options that cannot travel: functions, objects of this process, secrets, this process's own switches. */
export const LOCAL_ONLY_OPTIONS = [
  'canUseTool',
  'hooks',
  'extraTools',
  'env',
  'apiKey',
  'persistSession',
  'runGuard',
  'continueCutTurn',
  // Tapes are files of the process that records or replays them.
  'record',
  'replay',
  'replayTools',
  'replayUntil',
  'replaySessionId',
  // The process's own exporters or TracerProvider (a worker exports with its own OTEL_* settings).
  'telemetry',
] as const satisfies ReadonlyArray<keyof SessionOptions>;

/** The serializable options, by name. */
export type SerializableOptions = z.infer<typeof SerializableOptionsSchema>;

// The one definition: every option of SessionOptions is serializable (with the same type), the cluster's, or local.
type Unsorted = Exclude<
  keyof SessionOptions,
  keyof SerializableOptions | (typeof CLUSTER_OWNED_OPTIONS)[number] | (typeof LOCAL_ONLY_OPTIONS)[number]
>;
const _everyOptionSorted: [Unsorted] extends [never] ? true : Unsorted = true;
const _sameTypes: Partial<SessionOptions> = {} as Partial<SerializableOptions>;
