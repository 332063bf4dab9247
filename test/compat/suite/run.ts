/**
 * Runs one scenario on one product (the real Claude Code CLI, or agentpipe's built CLI) in a
 * fresh folder and home against the shared fake API, and returns what the suite compares.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type Options, type Query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { CLI_PATH } from '../../helpers/cli.ts';
import { scratchDir } from '../../helpers/temp.ts';
import { claudeOfflineEnv, cliBin, testPath } from '../../harness/helpers.ts';
import type { FakeApi, Replies } from './fake-api.ts';
import {
  filesLeft,
  normalizeLine,
  normalizeValue,
  placeless,
  projectRequests,
  type Json,
  type Places,
} from './normalize.ts';
import type { CliScenario, Scenario, SdkScenario } from './scenario.ts';

export type Product = 'claude' | 'agentpipe';

/** What one run left, normalized. */
export interface Outcome {
  code: number | null;
  stream: Json[];
  /** stdout as text for text output; what an SDK scenario's `run` returned. */
  extra: Json;
  requests: Json;
  files: Record<string, string>;
  stderr: string;
}

const MODEL = 'claude-sonnet-4-6';
const KILL_AFTER_MS = 90_000;

function productEnv(
  api: FakeApi,
  key: string,
  home: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTPIPE_') && !k.startsWith('CLAUDE')),
  ) as Record<string, string>;
  return {
    ...base,
    PATH: testPath(),
    ...claudeOfflineEnv(api.url, home, key),
    // Claude Code refuses bypassPermissions as root unless told it runs in a sandbox.
    IS_SANDBOX: '1',
    // A scenario's own variables; `{home}` is the run's home.
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v.split('{home}').join(home)])),
  };
}

function setUp(scenario: Scenario, product: Product): Places & { root: string } {
  const root = scratchDir(`compat-${product}`);
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  for (const [file, content] of Object.entries(scenario.files ?? {})) {
    mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
    writeFileSync(path.join(cwd, file), content);
  }
  for (const [file, seconds] of Object.entries(scenario.mtimes ?? {}))
    utimesSync(path.join(cwd, file), seconds, seconds);
  return { root, home: realpathSync(home), cwd: realpathSync(cwd) };
}

const repliesOf = (scenario: Scenario, cwd: string): Replies =>
  typeof scenario.replies === 'function' ? scenario.replies(cwd) : scenario.replies;

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnCli(product: Product, args: string[], cwd: string, env: Record<string, string>, stdin: string) {
  const [command, ...argv] = product === 'claude' ? [cliBin('claude'), ...args] : [process.execPath, CLI_PATH, ...args];
  const child = spawn(command!, argv, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => {});
  child.stdin.end(stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  return new Promise<Spawned>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/**
 * `tool_progress` heartbeats come while a tool runs longer than a second, in both products: how many a run gets is
 * the machine's speed, not behaviour, so they are left out of the comparison.
 */
const heartbeat = (line: Record<string, unknown>) => line.type === 'tool_progress';

const parse = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return { unparsed: l };
      }
    })
    .filter((l) => !heartbeat(l));

function cliArgs(scenario: CliScenario, args: string[]): string[] {
  const output = scenario.output ?? 'stream-json';
  return [
    '-p',
    '--output-format',
    output,
    ...(output === 'stream-json' ? ['--verbose'] : []),
    '--model',
    MODEL,
    ...args,
  ];
}

async function runCli(api: FakeApi, scenario: CliScenario, product: Product): Promise<Outcome> {
  const places = setUp(scenario, product);
  let sessionId = '';
  if (scenario.before) {
    const key = api.open(scenario.before.replies);
    const env = productEnv(api, key, places.home, scenario.env);
    const first = await spawnCli(product, cliArgs(scenario, scenario.before.args), places.cwd, env, '');
    api.close(key);
    const result = parse(first.stdout).find((l) => l.type === 'result');
    sessionId = String(result?.session_id ?? '');
  }
  const key = api.open(repliesOf(scenario, places.cwd));
  const env = productEnv(api, key, places.home, scenario.env);
  const args = scenario.args.map((a) => a.replace('{session}', sessionId).replace('{cwd}', places.cwd));
  const run = await spawnCli(product, cliArgs(scenario, args), places.cwd, env, scenario.stdin ?? '');
  const requests = api.close(key);
  const text = (scenario.output ?? 'stream-json') === 'text';
  const outcome: Outcome = {
    code: run.code,
    stream: text ? [] : parse(run.stdout).map((l) => normalizeLine(l, places)),
    extra: text ? placeless(run.stdout, places) : null,
    requests: projectRequests(requests, places),
    files: filesLeft(places.cwd, places),
    stderr: run.stderr,
  };
  rmSync(places.root, { recursive: true, force: true });
  return outcome;
}

async function collect(q: Query): Promise<Array<SDKMessage | { error: string }>> {
  const messages: Array<SDKMessage | { error: string }> = [];
  try {
    for await (const message of q) messages.push(message);
  } catch (error) {
    messages.push({ error: (error as Error).message.split('\n')[0]! });
  }
  return messages;
}

async function runSdk(api: FakeApi, scenario: SdkScenario, product: Product): Promise<Outcome> {
  const places = setUp(scenario, product);
  const key = api.open(repliesOf(scenario, places.cwd));
  let stderr = '';
  const base: Options = {
    pathToClaudeCodeExecutable: product === 'claude' ? cliBin('claude') : CLI_PATH,
    cwd: places.cwd,
    model: MODEL,
    env: productEnv(api, key, places.home, scenario.env),
    stderr: (data) => (stderr += data),
  };
  const all: Array<SDKMessage | { error: string }> = [];
  const extra = await scenario
    .run({
      cwd: places.cwd,
      query: (prompt, options = {}) =>
        query({ prompt, options: { ...base, ...options, env: { ...base.env, ...options.env } } }),
      collect: async (q) => {
        const got = await collect(q);
        all.push(...got);
        return got;
      },
      keep: (item) => all.push(item as SDKMessage),
    })
    // A scenario that throws (a control request refused) is compared on its error's first line.
    .catch((error: unknown) => ({ thrown: (error as Error).message.split('\n')[0]! }));
  const requests = api.close(key);
  const outcome: Outcome = {
    code: 0,
    stream: all
      .filter((m) => !heartbeat(m as Record<string, unknown>))
      .map((m) => normalizeLine(m as Record<string, unknown>, places)),
    extra: normalizeValue(extra ?? null, places),
    requests: projectRequests(requests, places),
    files: filesLeft(places.cwd, places),
    stderr,
  };
  rmSync(places.root, { recursive: true, force: true });
  return outcome;
}

/** Runs `scenario` on `product`. */
export function runScenario(api: FakeApi, scenario: Scenario, product: Product): Promise<Outcome> {
  return scenario.kind === 'cli' ? runCli(api, scenario, product) : runSdk(api, scenario, product);
}
