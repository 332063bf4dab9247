/**
 * Chooses the provider from the options and the environment:
 * - `--model scripted`, or no model and no API key: the embedded scripted model (demo or `--script`);
 * - `--base-url` (or `--provider openai`): an OpenAI-compatible server (Ollama, vLLM, llama.cpp, OpenAI);
 * - otherwise Anthropic (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`).
 * Real providers are imported lazily so the scripted path starts fast.
 */
import { AgentpipeError, errorCode, errorMessage } from '../process/errors.ts';
import { readFileSync } from 'node:fs';
import { DemoScript } from './demo.ts';
import { checkModelName } from './model-names.ts';
import { resolveClaudeModel } from './claude-models.ts';
import { FixedScript, ScriptedProvider, validateScript } from './scripted.ts';
import type { Script } from './scripted.ts';
import type { ModelProvider } from './types.ts';

/** Provider names accepted by `--provider`. */
export type ProviderName = 'scripted' | 'anthropic' | 'openai';

/** The model-related options, shared by every entry point. */
export interface ModelOptions {
  model?: string;
  provider?: ProviderName;
  baseUrl?: string;
  /** Path of a script file, or a script object (library). */
  script?: string | Script;
  /** API key; defaults to ANTHROPIC_API_KEY or OPENAI_API_KEY. */
  apiKey?: string;
  env?: Record<string, string | undefined>;
}

/** The chosen provider and the model id to ask it for. */
export interface ResolvedModel {
  provider: ModelProvider;
  model: string;
  /** True when the built-in demo answers because no model and no key were given (the session says so once). */
  demo?: boolean;
}

/** What a session says once when the demo answers for want of a model (`ResolvedModel.demo`). */
export const DEMO_NOTICE =
  'agentpipe: this is the offline demo (no --model and no API key): it looks at the folder, whatever the prompt. ' +
  'For a real model set ANTHROPIC_API_KEY, or give --base-url URL --model NAME for a local server; ' +
  '--model scripted --script FILE answers from your own script.';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-6';

/** The model a session on the Anthropic API asks for: Claude Code's aliases and retired models resolved as it does. */
export const anthropicModel = (model: string | undefined): string =>
  model ? resolveClaudeModel(model) : DEFAULT_ANTHROPIC_MODEL;

/** Raised when credentials are missing; the session reports it with `auth_status`. */
export class MissingCredentialsError extends AgentpipeError {
  static override readonly errorName: string = 'MissingCredentialsError';
}

export function chooseProvider(options: ModelOptions): ProviderName {
  const env = options.env ?? process.env;
  if (options.provider) return options.provider;
  if (options.model === 'scripted' || options.script !== undefined) return 'scripted';
  if (options.baseUrl) return 'openai';
  if (!options.model) return options.apiKey || env.ANTHROPIC_API_KEY ? 'anthropic' : 'scripted';
  if (/^(gpt-|o\d|chatgpt-)/.test(options.model) && env.OPENAI_API_KEY) return 'openai';
  return 'anthropic';
}

export async function resolveModel(options: ModelOptions): Promise<ResolvedModel> {
  const env = options.env ?? process.env;
  const name = chooseProvider(options);
  checkModelName(options, name);
  if (name === 'scripted') {
    const script = typeof options.script === 'string' ? await loadScript(options.script) : options.script;
    const source = script ? new FixedScript(validateScript(script)) : new DemoScript();
    return {
      provider: new ScriptedProvider(source),
      model: options.model && options.model !== 'scripted' ? options.model : 'scripted',
      ...(!script && options.model === undefined && options.provider === undefined ? { demo: true } : {}),
    };
  }
  if (name === 'anthropic') {
    const apiKey = options.apiKey ?? env.ANTHROPIC_API_KEY;
    if (!apiKey)
      throw new MissingCredentialsError(
        'No Anthropic API key: set ANTHROPIC_API_KEY, or use --model scripted or --base-url for a local server',
      );
    const { AnthropicProvider } = await import('./anthropic.ts');
    return {
      provider: new AnthropicProvider({
        apiKey,
        baseUrl: env.ANTHROPIC_BASE_URL,
        apiKeySource: options.apiKey ? 'user' : 'ANTHROPIC_API_KEY',
      }),
      model: anthropicModel(options.model),
    };
  }
  const { OpenAICompatibleProvider } = await import('./openai-compatible.ts');
  const model = options.model ?? env.OPENAI_MODEL;
  if (!model) throw new Error('--base-url needs --model: the model id the server should run (e.g. qwen3:8b)');
  return {
    provider: new OpenAICompatibleProvider({
      apiKey: options.apiKey ?? env.OPENAI_API_KEY,
      baseUrl: options.baseUrl ?? env.OPENAI_BASE_URL,
      apiKeySource: options.apiKey ? 'user' : env.OPENAI_API_KEY ? 'user' : 'none',
    }),
    model,
  };
}

async function loadScript(file: string): Promise<Script> {
  let text: string;
  try {
    // Synchronously: read once at start-up, and node:fs/promises would load ~20 modules (~3 ms).
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read script ${file}: ${errorCode(error) ?? errorMessage(error)}`);
  }
  try {
    // YAML is a superset of JSON; its parser loads only for .yaml/.yml scripts.
    const value: unknown = /\.ya?ml$/i.test(file) ? (await import('yaml')).parse(text) : JSON.parse(text);
    return validateScript(value, file);
  } catch (error) {
    throw new Error(`invalid script ${file}: ${errorMessage(error)}`);
  }
}
