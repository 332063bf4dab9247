/**
 * `query({prompt, options})`: the typed message stream as an async generator, with the control
 * methods of the official SDK. In-process by default; with `options.executable` it runs
 * agentpipe's CLI over the stream-json protocol; with `options.cluster` it runs on the worker
 * pool of a Redis (`agentpipe worker`); with `options.connect` on an `agentpipe serve`. All yield the same messages.
 */
import { statSync } from 'node:fs';
import type { AgentMessage, McpServerInfo, PermissionMode } from '../messages/types.ts';
import type { Engine, ModelInfo, PromptMessage, Query, QueryOptions } from './types.ts';
import { isRecord } from '../process/guards.ts';

export interface QueryParams {
  prompt: string | AsyncIterable<PromptMessage>;
  options?: QueryOptions;
}

/**
 * True when `cwd` is given and is not a folder here (the CLI's `--cwd` refuses it too). A cluster session runs on a
 * worker, whose folders are not checked here.
 */
function missingFolder(cwd: string | undefined): boolean {
  if (cwd === undefined) return false;
  try {
    return !statSync(cwd).isDirectory();
  } catch {
    return true;
  }
}

export function query({ prompt, options = {} }: QueryParams): Query {
  const given: unknown = prompt; // from JavaScript, anything
  if (
    typeof given !== 'string' &&
    !(isRecord(given) && typeof Reflect.get(given, Symbol.asyncIterator) === 'function')
  ) {
    throw new TypeError('query(): prompt must be a string or an AsyncIterable of user messages');
  }
  const engine: Promise<Engine> =
    !options.cluster && !options.connect && missingFolder(options.cwd)
      ? Promise.reject(
          new Error(`query(): cwd ${options.cwd}: no such folder (give an existing folder, or leave cwd out)`),
        )
      : options.cluster
        ? import('./cluster/engine.ts').then((m) => m.startCluster(prompt, { ...options, cluster: options.cluster! }))
        : options.connect
          ? import('./websocket-engine.ts').then((m) =>
              m.startRemote(prompt, { ...options, connect: options.connect! }),
            )
          : options.executable
            ? import('./child-process.ts').then((m) =>
                m.startChildProcess(prompt, { ...options, executable: options.executable! }),
              )
            : import('./in-process.ts').then((m) => m.startInProcess(prompt, options));
  // Awaited below, where its failure is the query's.
  engine.catch(() => {});
  const signal = options.abortController?.signal;
  const onAbort = () => {
    void engine.then(
      (e) => {
        // The engine has ended: nothing to interrupt.
        void e.control({ subtype: 'interrupt' }).catch(() => {});
        e.endInput();
      },
      () => {},
    );
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  async function* stream(): AsyncGenerator<AgentMessage, void> {
    const running = await engine;
    try {
      for await (const message of running.messages) yield message;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      running.close();
    }
  }
  const generator = stream();
  const control = async (request: { subtype: string; [key: string]: unknown }) => (await engine).control(request);
  return Object.assign(generator, {
    async interrupt() {
      await control({ subtype: 'interrupt' });
    },
    async setModel(model?: string) {
      await control({ subtype: 'set_model', model });
    },
    async setPermissionMode(mode: PermissionMode) {
      await control({ subtype: 'set_permission_mode', mode });
    },
    async supportedModels(): Promise<ModelInfo[]> {
      return ((await control({ subtype: 'list_models' }))?.models ?? []) as ModelInfo[];
    },
    async mcpServerStatus(): Promise<McpServerInfo[]> {
      return ((await control({ subtype: 'mcp_status' }))?.mcpServers ?? []) as McpServerInfo[];
    },
    close() {
      void engine.then(
        (e) => e.close(),
        () => {},
      );
    },
  });
}
