/**
 * Credentials as part of the stream: `auth_status` while an API key helper runs
 * (`isAuthenticating: true`, its stderr lines as `output`), then `isAuthenticating: false`,
 * with `error` when it fails or when the provider rejects the key (401/403). The key itself
 * (the helper's stdout) is never emitted or logged; token-like words in output are redacted.
 */
import { errorMessage } from '../process/errors.ts';
import { childEnv } from '../process/env.ts';
import { defaultSandbox, type SandboxConfig } from '../sandbox/config.ts';
import type { StreamEvent } from '../messages/types.ts';
import { ModelError } from './errors.ts';
import { checkModelName } from './model-names.ts';
import { eventsOf, type ModelProvider, type ModelRequest, type WebSearchRequest } from './types.ts';
import { anthropicModel, chooseProvider, resolveModel, type ModelOptions, type ResolvedModel } from './resolve.ts';

/** One auth state change. */
export interface AuthStatus {
  isAuthenticating: boolean;
  output: string[];
  error?: string;
}
export type AuthStatusListener = (status: AuthStatus) => Promise<void> | undefined;

const TOKEN_LIKE = /\b(?:sk-[\w-]{6,}|[A-Za-z0-9_\-+/=.]{32,})\b/g;

/** Replaces token-like words (sk-…, long opaque strings) by [redacted]. */
export function redactTokens(text: string): string {
  return text.replace(TOKEN_LIKE, '[redacted]');
}

/** Runs an API key helper before the first request (and again after the key was rejected). */
export class KeyHelperProvider implements ModelProvider {
  readonly specificationVersion = 'v1';
  readonly apiKeySource = 'apiKeyHelper';
  readonly provider: string;
  readonly #command: string;
  readonly #cwd: string;
  readonly #build: (key: string) => Promise<ModelProvider>;
  readonly #onStatus: AuthStatusListener;
  readonly #sandbox?: () => SandboxConfig | undefined;
  #inner?: Promise<ModelProvider>;

  /** Anthropic's web search, with the helper's key. */
  readonly webSearch?: (request: WebSearchRequest) => Promise<unknown[]>;

  constructor(options: {
    provider: string;
    command: string;
    cwd: string;
    build: (key: string) => Promise<ModelProvider>;
    onStatus: AuthStatusListener;
    /** The session's sandbox when the helper runs (default: one on `cwd`). */
    sandbox?: () => SandboxConfig | undefined;
  }) {
    this.provider = options.provider;
    this.#sandbox = options.sandbox;
    this.#command = options.command;
    this.#cwd = options.cwd;
    this.#build = options.build;
    this.#onStatus = options.onStatus;
    if (options.provider === 'anthropic') {
      this.webSearch = async (request) => {
        this.#inner ??= this.#authenticate(request.signal);
        const inner = await this.#inner.catch((error: unknown) => {
          this.#inner = undefined;
          throw error;
        });
        if (!inner.webSearch)
          throw new ModelError({
            kind: 'invalid_request',
            message: `the ${inner.provider} provider has no web search`,
          });
        return inner.webSearch(request);
      };
    }
  }

  stream(request: ModelRequest): AsyncGenerator<StreamEvent> {
    return eventsOf(this.streamBatches(request));
  }

  async *streamBatches(request: ModelRequest): AsyncGenerator<StreamEvent[]> {
    this.#inner ??= this.#authenticate(request.abortSignal);
    let inner: ModelProvider;
    try {
      inner = await this.#inner;
    } catch (error) {
      this.#inner = undefined;
      throw error;
    }
    try {
      if (inner.streamBatches) yield* inner.streamBatches(request);
      else for await (const event of inner.stream(request)) yield [event];
    } catch (error) {
      if (ModelError.isInstance(error) && error.kind === 'authentication_failed') {
        this.#inner = undefined; // the next request asks the helper again
        await this.#onStatus({ isAuthenticating: false, output: [], error: redactTokens(error.message) });
      }
      throw error;
    }
  }

  async #authenticate(signal: AbortSignal): Promise<ModelProvider> {
    const output: string[] = [];
    await this.#onStatus({ isAuthenticating: true, output: [] });
    let key: string;
    try {
      const sandbox = this.#sandbox?.() ?? defaultSandbox(this.#cwd);
      key = await runKeyHelper(
        this.#command,
        this.#cwd,
        signal,
        async (line) => {
          output.push(redactTokens(line));
          await this.#onStatus({ isAuthenticating: true, output: output.slice(-20) });
        },
        60_000,
        sandbox,
      );
    } catch (error) {
      signal.throwIfAborted();
      const message = `API key helper failed: ${errorMessage(error)}`;
      await this.#onStatus({ isAuthenticating: false, output: output.slice(-20), error: message });
      throw new ModelError({ kind: 'authentication_failed', message });
    }
    await this.#onStatus({ isAuthenticating: false, output: output.slice(-20) });
    return this.#build(key);
  }
}

/** Runs `command` in a shell (its own process group); its trimmed stdout is the key, each stderr line is reported. */
export async function runKeyHelper(
  command: string,
  cwd: string,
  signal: AbortSignal,
  onLine: (line: string) => Promise<void>,
  timeoutMs = 60_000,
  sandbox: SandboxConfig = defaultSandbox(cwd),
): Promise<string> {
  let partial = '';
  let lines = Promise.resolve();
  // The helper's sandbox: nothing writable, the host's network and the credential stores (it
  // exists to use them), agentpipe's home and other processes out of sight.
  const { runSandboxed } = await import('../sandbox/run.ts');
  const run = await runSandboxed(sandbox, {
    profile: 'helper',
    command,
    cwd,
    env: childEnv(),
    signal,
    timeoutMs,
    cap: 64 * 1024,
    graceMs: 1000,
    onOutput: (stream, chunk) => {
      if (stream !== 'stderr') return;
      partial += chunk;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) if (line.trim()) lines = lines.then(() => onLine(line.trimEnd()));
    },
  });
  if (partial.trim()) lines = lines.then(() => onLine(partial.trimEnd()));
  await lines;
  const key = run.stdout.trim();
  if (run.error) throw new Error(run.error.message);
  if (run.stopped === 'aborted') throw new Error('interrupted');
  if (run.stopped === 'timeout') throw new Error(`timed out after ${timeoutMs} ms and was killed`);
  if (run.exitSignal) throw new Error(`killed by ${run.exitSignal}`);
  if (run.code !== 0) throw new Error(`exited with code ${run.code}`);
  if (!key) throw new Error('printed no key');
  if (/\s/.test(key)) throw new Error('printed more than one word (expected only the key)');
  return key;
}

/** Resolves the model with a key helper: the helper runs on the first request, not now. */
export async function resolveWithKeyHelper(
  options: ModelOptions,
  command: string,
  cwd: string,
  onStatus: AuthStatusListener,
  sandbox?: () => SandboxConfig | undefined,
): Promise<ResolvedModel> {
  const env = options.env ?? process.env;
  const name = chooseProvider({ ...options, apiKey: options.apiKey ?? 'from-helper' });
  checkModelName(options, name);
  if (name === 'scripted') return resolveModel(options);
  const model = name === 'anthropic' ? anthropicModel(options.model) : (options.model ?? env.OPENAI_MODEL);
  if (!model) throw new Error('--base-url needs --model: the model id the server should run (e.g. qwen3:8b)');
  const provider = new KeyHelperProvider({
    provider: name === 'anthropic' ? 'anthropic' : 'openai-compatible',
    command,
    cwd,
    onStatus,
    sandbox,
    build: async (key) => (await resolveModel({ ...options, provider: name, apiKey: key })).provider,
  });
  return { provider, model };
}
