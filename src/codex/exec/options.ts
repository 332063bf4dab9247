/**
 * `agentpipe exec`'s command line and environment → agentpipe's session options and prompt.
 *
 * The model: `--model scripted` (or `-c agentpipe.script=<file>`) is the embedded scripted model; a
 * `claude-*` model is Anthropic's (`ANTHROPIC_API_KEY`); any other model with a key
 * (`CODEX_API_KEY`, the SDK's `apiKey`, or `OPENAI_API_KEY`) or a base URL (`-c openai_base_url=…`,
 * the SDK's `baseUrl`, `OPENAI_BASE_URL`, or `model_providers.<id>.base_url` of `-c model_provider`)
 * runs on agentpipe's OpenAI-compatible provider; with none of these, agentpipe's own defaults apply.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { UserContentBlock } from '../../messages/types.ts';
import type { EffortLevel } from '../../model/types.ts';
import type { ProviderName } from '../../model/resolve.ts';
import type { SessionOptions } from '../../session/options.ts';
import type { ConfigOverride, ConfigValue } from '../config-overrides.ts';
import {
  APPROVAL_POLICIES,
  SANDBOX_MODES,
  codexPermissions,
  sessionPermissions,
  type CodexApprovalPolicy,
  type CodexPermissions,
  type CodexSandboxMode,
} from '../permissions.ts';
import { ExecUsageError, type ExecArgs } from './args.ts';

/** A run that cannot start (exit 1, as codex's own start-up errors). */
export class ExecSetupError extends Error {
  override name = 'ExecSetupError';
}

/** What a run needs. */
export interface ExecPlan {
  options: SessionOptions;
  permissions: CodexPermissions;
  /** Config keys that change nothing here (one warning names them). */
  ignoredKeys: string[];
}

const PROVIDERS: readonly ProviderName[] = ['scripted', 'anthropic', 'openai'];

/** codex's reasoning efforts on agentpipe's levels. */
const EFFORTS: Record<string, EffortLevel> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
  ultra: 'max',
  persistent: 'max',
};

/** The config overrides by key (the last one wins, as in codex). */
function configMap(overrides: ConfigOverride[]): Map<string, ConfigValue> {
  return new Map(overrides.map((o) => [o.key, o.value]));
}

function stringOf(config: Map<string, ConfigValue>, key: string): string | undefined {
  const value = config.get(key);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ExecUsageError(`-c ${key}: expected a string`);
  return value;
}

function oneOf<T extends string>(config: Map<string, ConfigValue>, key: string, allowed: readonly T[]): T | undefined {
  const value = stringOf(config, key);
  if (value !== undefined && !allowed.includes(value as T))
    throw new ExecUsageError(
      `-c ${key}: unknown value ${JSON.stringify(value)}; expected one of ${allowed.join(', ')}`,
    );
  return value as T | undefined;
}

/** The keys this module reads (exactly, or as a prefix before a dot). */
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

/** Maps the command line; `env` is the process's environment (the SDK's `env` option). */
export function execPlan(args: ExecArgs, env: NodeJS.ProcessEnv, cwdNow: string): ExecPlan {
  const config = configMap(args.config);
  const cwd = path.resolve(cwdNow, args.cd ?? '.');
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new ExecSetupError(`--cd ${args.cd}: no such folder`);
  if (!args.skipGitRepoCheck && !insideGitRepo(cwd))
    throw new ExecSetupError('Not inside a trusted directory and --skip-git-repo-check was not specified.');
  const sandbox = args.sandbox ?? oneOf<CodexSandboxMode>(config, 'sandbox_mode', SANDBOX_MODES);
  const approvalPolicy = oneOf<CodexApprovalPolicy>(config, 'approval_policy', APPROVAL_POLICIES);
  const network = config.get('sandbox_workspace_write.network_access');
  if (network !== undefined && typeof network !== 'boolean')
    throw new ExecUsageError('-c sandbox_workspace_write.network_access: expected true or false');
  const permissions = codexPermissions({ sandbox, approvalPolicy, bypass: args.bypass, networkAccess: network });
  const effort = stringOf(config, 'model_reasoning_effort');
  if (effort !== undefined && !(effort in EFFORTS))
    throw new ExecUsageError(`-c model_reasoning_effort: unknown effort ${JSON.stringify(effort)}`);
  const webSearch = oneOf(config, 'web_search', ['disabled', 'cached', 'live'] as const);
  const instructionsFile = stringOf(config, 'model_instructions_file');
  const systemPrompt = instructionsFile
    ? readText(path.resolve(cwd, instructionsFile), 'model_instructions_file')
    : stringOf(config, 'instructions');
  const developer = stringOf(config, 'developer_instructions');
  const options: SessionOptions = {
    cwd,
    ...modelOptions(args, config, env),
    ...sessionPermissions(permissions),
    ...(args.addDirs.length ? { additionalDirectories: args.addDirs.map((d) => path.resolve(cwd, d)) } : {}),
    ...(effort ? { effort: EFFORTS[effort] } : {}),
    ...(webSearch === 'disabled' ? { disallowedTools: ['WebSearch'] } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    ...(developer !== undefined ? { appendSystemPrompt: developer } : {}),
    ...(args.outputSchema ? { outputFormat: { type: 'json_schema', schema: readSchema(args.outputSchema, cwd) } } : {}),
    ...(args.ephemeral ? { persistSession: false } : {}),
    ...sessionOf(args),
    settingSources: args.ignoreUserConfig ? ['project', 'local'] : ['user', 'project', 'local'],
    includePartialMessages: false,
    env,
  };
  const ignoredKeys = [...config.keys()].filter(
    (key) => !KNOWN.includes(key) && !/^model_providers\.[^.]+\.(base_url|env_key|name|wire_api)$/.test(key),
  );
  return { options, permissions, ignoredKeys };
}

/** resume / fork → the session to continue. */
function sessionOf(args: ExecArgs): Pick<SessionOptions, 'resume' | 'continue' | 'forkSession'> {
  const s = args.session;
  if (!s) return {};
  return {
    ...(s.id ? { resume: s.id } : { continue: true }),
    ...(s.kind === 'fork' ? { forkSession: true } : {}),
  };
}

/** The provider, model, base URL and key (see the module comment). */
function modelOptions(
  args: ExecArgs,
  config: Map<string, ConfigValue>,
  env: NodeJS.ProcessEnv,
): Pick<SessionOptions, 'model' | 'provider' | 'baseUrl' | 'apiKey' | 'script'> {
  const model = args.model ?? stringOf(config, 'model');
  const script = stringOf(config, 'agentpipe.script');
  const provider = oneOf<ProviderName>(config, 'agentpipe.provider', PROVIDERS);
  const chosen = stringOf(config, 'model_provider');
  const providerKey = (field: string) => (chosen ? stringOf(config, `model_providers.${chosen}.${field}`) : undefined);
  const envKey = providerKey('env_key');
  const apiKey = (envKey ? env[envKey] : undefined) ?? env.CODEX_API_KEY ?? env.OPENAI_API_KEY;
  const baseUrl = providerKey('base_url') ?? stringOf(config, 'openai_base_url') ?? env.OPENAI_BASE_URL;
  const base = { ...(model ? { model } : {}), ...(script ? { script: path.resolve(script) } : {}) };
  if (script && !existsSync(base.script!)) throw new ExecSetupError(`-c agentpipe.script: no such file ${script}`);
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

/** True when `dir` is inside a git working tree (codex's check before it runs anywhere else). */
function insideGitRepo(dir: string): boolean {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, '.git'))) return true;
    if (path.dirname(at) === at) return false;
  }
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ExecSetupError(`${what}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** `--output-schema FILE`: a JSON Schema object. */
function readSchema(file: string, cwd: string): Record<string, unknown> {
  const text = readText(path.resolve(cwd, file), '--output-schema');
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new ExecSetupError(`--output-schema ${file}: not valid JSON (${(error as Error).message})`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new ExecSetupError(`--output-schema ${file}: the schema must be a JSON object`);
  return schema as Record<string, unknown>;
}

const IMAGE_TYPES: Record<string, 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** The prompt's content: its text, then each `--image` file. */
export function promptContent(text: string, images: string[], cwd: string): string | UserContentBlock[] {
  if (!images.length) return text;
  const blocks: UserContentBlock[] = [];
  for (const image of images) {
    const file = path.resolve(cwd, image);
    const mediaType = IMAGE_TYPES[path.extname(file).toLowerCase()];
    if (!mediaType) throw new ExecSetupError(`--image ${image}: not a PNG, JPEG, GIF or WebP file`);
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch (error) {
      throw new ExecSetupError(
        `--image ${image}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    blocks.push({ type: 'image', source: { type: 'base64', media_type: mediaType, data: data.toString('base64') } });
  }
  return text ? [{ type: 'text', text }, ...blocks] : blocks;
}
