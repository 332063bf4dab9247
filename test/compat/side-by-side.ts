/**
 * Runs Claude Code (the real pinned CLI in test/harness/clis) and agentpipe side by side against
 * the same local fake Messages API, each with its own copy of the working folder, and normalizes
 * what they print so the two can be compared: ids, session ids, timestamps, durations, costs,
 * the working folder and the fields only one of them carries (the version numbers, agentpipe's
 * own extensions) are replaced or dropped.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_PATH } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { claudeOfflineEnv, cliBin, testPath } from '../harness/helpers.ts';
import {
  anthropicBlock,
  anthropicStream,
  startFakeServer,
  type RecordedRequest,
  type Reply,
} from '../model/fake-servers.ts';

export type Line = Record<string, any>;

/** One CLI's run: stdout lines (parsed when JSON), raw stdout, stderr, exit code, the API requests it made. */
export interface SideRun {
  stdout: string;
  lines: Line[];
  stderr: string;
  code: number | null;
  requests: RecordedRequest[];
  cwd: string;
}

/** A scenario: the replies of the fake API (model requests only, in order), the files of the folder, the CLI args. */
export interface Scenario {
  /** The replies, or a function of the working folder (tool inputs take absolute paths). */
  replies: Reply[] | ((cwd: string) => Reply[]);
  files?: Record<string, string>;
  args: string[];
  stdin?: string;
  /** Environment over the runner's (e.g. ANTHROPIC_BASE_URL of a port nothing listens on). */
  env?: Record<string, string>;
}

const isModelRequest = (r: RecordedRequest) =>
  r.method === 'POST' && r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens');

async function runOne(which: 'claude' | 'agentpipe', scenario: Scenario): Promise<SideRun> {
  let n = 0;
  let replies: Reply[] = [];
  const modelRequests: RecordedRequest[] = [];
  const server = await startFakeServer((request) => {
    if (!isModelRequest(request)) return { kind: 'json', status: 200, body: { input_tokens: 1 } };
    // Model requests take the replies in order (headless Claude Code 2.1.197 makes no side requests here);
    // anything else (token counting) gets a small JSON answer.
    modelRequests.push(request);
    return replies[Math.min(n++, replies.length - 1)]!;
  });
  const root = scratchDir(`side-${which}`);
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  replies = typeof scenario.replies === 'function' ? scenario.replies(cwd) : scenario.replies;
  for (const [file, content] of Object.entries(scenario.files ?? {})) {
    mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
    writeFileSync(path.join(cwd, file), content);
  }
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PATH: testPath(),
    ...claudeOfflineEnv(server.url, home, 'sk-ant-test-side-by-side'),
    // Claude Code refuses bypassPermissions as root outside a sandbox it is told of.
    IS_SANDBOX: '1',
    ...scenario.env,
  };
  const [command, ...args] =
    which === 'claude'
      ? [cliBin('claude'), ...scenario.args]
      : [process.execPath, CLI_PATH, '--model', 'claude-sonnet-4-5', ...scenario.args];
  const child = spawn(command!, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(scenario.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  await server.close();
  const lines = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        return { raw: l };
      }
    });
  return { stdout, lines, stderr, code, requests: modelRequests, cwd };
}

/** Runs the scenario on both CLIs (one after the other: the fake answers in order). */
export async function sideBySide(scenario: Scenario): Promise<{ claude: SideRun; agentpipe: SideRun }> {
  const claude = await runOne('claude', scenario);
  const agentpipe = await runOne('agentpipe', scenario);
  return { claude, agentpipe };
}

/** A text answer of the fake. */
export const answer = (t: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: t }])],
    'end_turn',
  ),
});

/** A model turn that calls tools (each `[id, name, input]`). */
export const calls = (...list: Array<[string, string, Record<string, unknown>]>): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    list.map(([id, name, input], i) =>
      anthropicBlock(i, { type: 'tool_use', id, name, input: {} }, [
        { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      ]),
    ),
    'tool_use',
  ),
});

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const VOLATILE = new Set([
  'duration_ms',
  'duration_api_ms',
  'ttft_ms',
  'ttft_stream_ms',
  'time_to_request_ms',
  'total_cost_usd',
  'costUSD',
  'elapsed_time_seconds',
  'timestamp',
]);

/** A line with its ids, the folder, times and costs replaced by placeholders (ids numbered by first sight). */
export function normalize(lines: Line[], cwd: string): Line[] {
  const ids = new Map<string, string>();
  const idOf = (raw: string) => {
    if (!ids.has(raw)) ids.set(raw, `<id${ids.size}>`);
    return ids.get(raw)!;
  };
  const walk = (value: unknown, key = ''): unknown => {
    if (typeof value === 'string') return value.split(cwd).join('<CWD>').replace(UUID, idOf);
    if (typeof value === 'number' && VOLATILE.has(key)) return 0;
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((k) => [k, walk((value as Record<string, unknown>)[k], k)]),
      );
    }
    return value;
  };
  return lines.map((l) => walk(l) as Line);
}
