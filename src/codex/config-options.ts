/**
 * Codex's config keys (`-c key=value` of `codex exec` and `codex app-server`, the `config` object
 * of thread/start) → agentpipe's session options, for both faces.
 *
 * The model: `model = "scripted"` (or `agentpipe.script = "<file>"`) is the embedded scripted
 * model; a `claude-*` model is Anthropic's (`ANTHROPIC_API_KEY`); any other model with a key
 * (`CODEX_API_KEY`, the SDK's `apiKey`, `OPENAI_API_KEY`, or the `env_key` of the chosen
 * `model_providers.<id>`) or a base URL (`openai_base_url`, the SDK's `baseUrl`, `OPENAI_BASE_URL`,
 * `model_providers.<id>.base_url`) runs on agentpipe's OpenAI-compatible provider; with none of
 * these, agentpipe's own defaults apply. `agentpipe.provider` chooses outright.
 */
import { AgentpipeError, errorCode } from '../process/errors.ts';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { EffortLevel } from '../model/types.ts';
import type { ProviderName } from '../model/resolve.ts';
import type { SessionOptions } from '../session/options.ts';
import type { ConfigOverride, ConfigValue } from './config-overrides.ts';
import { APPROVAL_POLICIES, SANDBOX_MODES, type CodexApprovalPolicy, type CodexSandboxMode } from './permissions.ts';
import { holdSecretVariable } from '../process/env.ts';
import { isOneOf } from '../process/guards.ts';

/** A config value that cannot be used (exec: exit 2; app-server: -32602). */
export class CodexConfigError extends AgentpipeError {
  static override readonly errorName: string = 'CodexConfigError';
}

/** What the config keys ask for. */
export interface CodexSettings {
  options: Pick<
    SessionOptions,
    | 'model'
    | 'provider'
    | 'baseUrl'
    | 'apiKey'
    | 'script'
    | 'effort'
    | 'disallowedTools'
    | 'systemPrompt'
    | 'appendSystemPrompt'
  >;
  sandbox?: CodexSandboxMode;
  approvalPolicy?: CodexApprovalPolicy;
  networkAccess?: boolean;
  /** Keys that change nothing in agentpipe (one warning names them). */
  ignoredKeys: string[];
}

const PROVIDERS: readonly ProviderName[] = ['scripted', 'anthropic', 'openai'];

/** codex's reasoning efforts on agentpipe's levels. */
export const EFFORTS: Record<string, EffortLevel> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
  ultra: 'max',
  persistent: 'max',
};

/** The keys read here (exactly). */
const KNOWN = [
  'model',
  'model_provider',
  'openai_base_url',
  'model_reasoning_effort',
  'approval_policy',
  'sandbox_mode',
  'sandbox_workspace_write.network_access',
  'web_search',
  'instructions',
  'developer_instructions',
  'model_instructions_file',
  'agentpipe.script',
  'agentpipe.provider',
];

/** The overrides by key (the last one wins, as in codex). */
export function configMap(overrides: ConfigOverride[]): Map<string, ConfigValue> {
  return new Map(overrides.map((o) => [o.key, o.value]));
}

/** A JSON config object (thread/start's `config`) as dotted overrides. */
export function flattenConfig(value: Record<string, unknown>, prefix = ''): ConfigOverride[] {
  return Object.entries(value).flatMap(([key, child]) => {
    const dotted = prefix ? `${prefix}.${key}` : key;
    if (child !== null && typeof child === 'object' && !Array.isArray(child))
      return flattenConfig(child as Record<string, unknown>, dotted);
    return child === null || child === undefined ? [] : [{ key: dotted, value: child as ConfigValue }];
  });
}

function stringOf(config: Map<string, ConfigValue>, key: string): string | undefined {
  const value = config.get(key);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new CodexConfigError(`-c ${key}: expected a string`);
  return value;
}

function oneOf<T extends string>(config: Map<string, ConfigValue>, key: string, allowed: readonly T[]): T | undefined {
  const value = stringOf(config, key);
  if (value === undefined) return undefined;
  if (!isOneOf(allowed, value))
    throw new CodexConfigError(
      `-c ${key}: unknown value ${JSON.stringify(value)}; expected one of ${allowed.join(', ')}`,
    );
  return value;
}

/** Maps the config keys; `model` is a `--model` that wins over the `model` key; paths resolve in `cwd`. */
export function codexSettings(
  config: Map<string, ConfigValue>,
  env: NodeJS.ProcessEnv,
  cwd: string,
  model?: string,
): CodexSettings {
  const network = config.get('sandbox_workspace_write.network_access');
  if (network !== undefined && typeof network !== 'boolean')
    throw new CodexConfigError('-c sandbox_workspace_write.network_access: expected true or false');
  const effort = stringOf(config, 'model_reasoning_effort');
  if (effort !== undefined && !(effort in EFFORTS))
    throw new CodexConfigError(`-c model_reasoning_effort: unknown effort ${JSON.stringify(effort)}`);
  const webSearch = oneOf(config, 'web_search', ['disabled', 'cached', 'live'] as const);
  const instructionsFile = stringOf(config, 'model_instructions_file');
  const systemPrompt = instructionsFile
    ? readText(path.resolve(cwd, instructionsFile), 'model_instructions_file')
    : stringOf(config, 'instructions');
  const developer = stringOf(config, 'developer_instructions');
  const sandbox = oneOf<CodexSandboxMode>(config, 'sandbox_mode', SANDBOX_MODES);
  const approvalPolicy = oneOf<CodexApprovalPolicy>(config, 'approval_policy', APPROVAL_POLICIES);
  return {
    options: {
      ...modelOptions(config, env, cwd, model),
      ...(effort ? { effort: EFFORTS[effort] } : {}),
      ...(webSearch === 'disabled' ? { disallowedTools: ['WebSearch'] } : {}),
      ...(systemPrompt !== undefined ? { systemPrompt } : {}),
      ...(developer !== undefined ? { appendSystemPrompt: developer } : {}),
    },
    ...(sandbox ? { sandbox } : {}),
    ...(approvalPolicy ? { approvalPolicy } : {}),
    ...(network !== undefined ? { networkAccess: network } : {}),
    ignoredKeys: [...config.keys()].filter(
      (key) => !KNOWN.includes(key) && !/^model_providers\.[^.]+\.[a-z_]+$/.test(key),
    ),
  };
}

/** The provider, model, base URL and key (see the module comment). */
function modelOptions(
  config: Map<string, ConfigValue>,
  env: NodeJS.ProcessEnv,
  cwd: string,
  given: string | undefined,
): Pick<SessionOptions, 'model' | 'provider' | 'baseUrl' | 'apiKey' | 'script'> {
  const model = given ?? stringOf(config, 'model');
  const scriptKey = stringOf(config, 'agentpipe.script');
  const script = scriptKey ? path.resolve(cwd, scriptKey) : undefined;
  if (script && !existsSync(script)) throw new CodexConfigError(`-c agentpipe.script: no such file ${scriptKey}`);
  const provider = oneOf<ProviderName>(config, 'agentpipe.provider', PROVIDERS);
  const chosen = stringOf(config, 'model_provider');
  const providerKey = (field: string) => (chosen ? stringOf(config, `model_providers.${chosen}.${field}`) : undefined);
  const envKey = providerKey('env_key');
  // The key is agentpipe's now: no tool, hook or MCP server it starts may see it.
  if (envKey) holdSecretVariable(envKey);
  const apiKey = (envKey ? env[envKey] : undefined) ?? env.CODEX_API_KEY ?? env.OPENAI_API_KEY;
  const baseUrl = providerKey('base_url') ?? stringOf(config, 'openai_base_url') ?? env.OPENAI_BASE_URL;
  const base = { ...(model ? { model } : {}), ...(script ? { script } : {}) };
  if (provider) return { ...base, provider, ...(provider === 'openai' ? { baseUrl, apiKey } : {}) };
  if (model === 'scripted' || script) return { ...base, provider: 'scripted' };
  if (model?.startsWith('claude')) return { ...base, provider: 'anthropic' };
  if (apiKey || baseUrl)
    return {
      ...base,
      provider: 'openai',
      baseUrl: baseUrl ?? 'https://api.openai.com/v1',
      ...(apiKey ? { apiKey } : {}),
    };
  return base;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CodexConfigError(`${what}: cannot read ${file} (${errorCode(error) ?? 'error'})`);
  }
}
