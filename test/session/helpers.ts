/**
 * Shared pieces of the session tests: a temp AGENTPIPE_HOME, CLI runs in it, a fake Anthropic server fed replies in
 * order.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { runCli, startCli, type RunResult } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import {
  anthropicBlock,
  anthropicStream,
  startFakeServer,
  type FakeServer,
  type Reply,
} from '../model/fake-servers.ts';

export const KEY = 'sk-ant-test-session-0123456789';
export const STREAM = ['--output-format', 'stream-json', '--verbose'];
export const STREAM_IN = [...STREAM, '--input-format', 'stream-json'];

/** A working folder and an AGENTPIPE_HOME, both temporary. */
export interface Place {
  cwd: string;
  home: string;
  env: Record<string, string>;
}

export function place(): Place {
  const cwd = tempDir();
  const home = tempDir();
  return { cwd, home, env: { AGENTPIPE_HOME: home } };
}

/** Trusts `p.cwd` in `p.home`'s settings, as `agentpipe trust` records it: the folder's own settings apply. */
export function trusted(p: Place): Place {
  const file = path.join(p.home, 'settings.json');
  const current = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(file, JSON.stringify({ ...current, trustedFolders: [realpathSync(p.cwd)] }));
  return p;
}

/** Runs the CLI in `p.cwd` with `p.home`. */
export function run(
  p: Place,
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return runCli(args, { cwd: p.cwd, stdin: options.stdin, env: { ...p.env, ...options.env } });
}

export function start(p: Place, args: string[], env: Record<string, string> = {}) {
  return startCli(args, { cwd: p.cwd, env: { ...p.env, ...env } });
}

/** stream-json input lines of user prompts (a string, or {text, uuid}). */
export function prompts(...items: Array<string | { text: string; uuid: string }>): string {
  return (
    items
      .map((item) => {
        const { text, uuid } = typeof item === 'string' ? { text: item, uuid: undefined } : item;
        return JSON.stringify({
          type: 'user',
          message: { role: 'user', content: text },
          parent_tool_use_id: null,
          session_id: '',
          ...(uuid ? { uuid } : {}),
        });
      })
      .join('\n') + '\n'
  );
}

/** The transcript files under `home`. */
export function transcripts(home: string): string[] {
  const root = path.join(home, 'projects');
  let dirs: string[];
  try {
    dirs = readdirSync(root);
  } catch {
    return [];
  }
  return dirs.flatMap((d) => readdirSync(path.join(root, d)).map((f) => path.join(root, d, f)));
}

export function readLines(file: string): Array<Record<string, any>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Replies of a fake Anthropic server. */
export const text = (t: string, usage?: { input_tokens: number; output_tokens: number }): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: t }])],
    'end_turn',
    usage,
  ),
});
export const toolCall = (id: string, name: string, input: Record<string, unknown>, say = 'Running.'): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [
      anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: say }]),
      anthropicBlock(1, { type: 'tool_use', id, name, input: {} }, [
        { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      ]),
    ],
    'tool_use',
  ),
});

/** A fake Anthropic server answering request n with replies[n] (the last one repeats). */
export async function anthropic(replies: Reply[]): Promise<FakeServer & { env: Record<string, string> }> {
  let n = 0;
  const server = await startFakeServer(() => replies[Math.min(n++, replies.length - 1)]);
  after(() => server.close());
  return Object.assign(server, { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY } });
}

/** Args of a run against the fake server. */
export const CLAUDE = ['--model', 'claude-sonnet-4-5', '--permission-mode', 'bypassPermissions'];
