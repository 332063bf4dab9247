/**
 * The session the tape tests record: agentpipe on the Anthropic provider against the local fake Messages API, in a
 * folder with one file. The model reads it, edits it, appends to it with Bash, hands a subagent a task (Task: two
 * model requests of its own, a Bash call between them), calls the `add` tool of a real stdio MCP server, and answers.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, parseLines, type RunResult } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import {
  anthropicBlock,
  anthropicStream,
  startFakeServer,
  type FakeServer,
  type Reply,
} from '../model/fake-servers.ts';
import { fixtureServer } from '../mcp/helpers.ts';

/** The key the recording runs with: it must never reach a tape. */
export const SECRET_KEY = 'sk-ant-tape-test-0123456789-SECRET';
export const PROMPT = 'Tidy notes.txt';
export const START_FILES = { 'notes.txt': 'alpha\nbeta\n' };

const tool = (id: string, name: string, input: unknown, text?: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [
      ...(text ? [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text }])] : []),
      anthropicBlock(text ? 1 : 0, { type: 'tool_use', id, name, input: {} }, [
        { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      ]),
    ],
    'tool_use',
  ),
});
const say = (text: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [
      anthropicBlock(
        0,
        { type: 'text', text: '' },
        text.split(' ').map((word, i) => ({ type: 'text_delta', text: i ? ` ${word}` : word })),
      ),
    ],
    'end_turn',
  ),
});

/** The model's answers in the order the session asks (the subagent's two between the main agent's 4th and 5th). */
export function replies(cwd: string): Reply[] {
  const notes = path.join(cwd, 'notes.txt');
  return [
    tool('toolu_01read', 'Read', { file_path: notes }, 'Let me look at the notes.'),
    tool('toolu_02edit', 'Edit', { file_path: notes, old_string: 'alpha', new_string: 'ALPHA' }),
    tool('toolu_03bash', 'Bash', { command: 'echo gamma >> notes.txt' }),
    tool('toolu_04task', 'Task', {
      description: 'Count the lines',
      prompt: 'Count the lines of notes.txt',
      subagent_type: 'general-purpose',
    }),
    tool('toolu_05sub', 'Bash', { command: 'wc -l notes.txt' }),
    say('notes.txt has 3 lines.'),
    tool('toolu_06mcp', 'mcp__calc__add', { a: 2, b: 3 }),
    say('All done: 3 lines, and 2 + 3 = 5.'),
  ];
}

/** The MCP servers of the session. */
export const MCP_CONFIG = JSON.stringify({ mcpServers: { calc: fixtureServer() } });

/** The flags every run of the session shares (the recording adds its prompt, model and --record). */
export const SESSION_FLAGS = [
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'bypassPermissions',
  '--mcp-config',
  MCP_CONFIG,
  '--setting-sources',
  '',
];

/** A folder with the session's starting files (a copy of `from` when given). */
export function startFolder(from?: string): string {
  const dir = scratchDir('tape-work-');
  if (from) cpSync(from, dir, { recursive: true });
  else for (const [name, text] of Object.entries(START_FILES)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** A recorded session: its folder (as the recording left it), tape, output and the fake API's requests. */
export interface Recording {
  cwd: string;
  tape: string;
  run: RunResult;
  lines: Array<Record<string, any>>;
  server: FakeServer;
}

/** Records the session against a fresh fake API; the API is stopped before this returns. */
export async function recordSession(extra: string[] = []): Promise<Recording> {
  const cwd = startFolder();
  const tape = path.join(scratchDir('tape-'), 'session.tape.jsonl');
  const answers = replies(cwd);
  let n = 0;
  const server = await startFakeServer((request) =>
    request.path.startsWith('/v1/messages') && request.method === 'POST'
      ? answers[Math.min(n++, answers.length - 1)]!
      : { kind: 'json', status: 404, body: {} },
  );
  try {
    const run = await runCli(
      ['-p', PROMPT, '--model', 'claude-sonnet-4-5', ...SESSION_FLAGS, '--record', tape, ...extra],
      {
        cwd,
        env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: SECRET_KEY },
      },
    );
    return { cwd, tape, run, lines: parseLines(run.stdout), server };
  } finally {
    await server.close();
  }
}

/** Replays `tape` in `cwd` with no key (the fake API, if `offline` names one, is stopped: nothing answers there). */
export async function replaySession(
  tape: string,
  cwd: string,
  args: string[] = [],
  offline = 'http://127.0.0.1:9',
): Promise<{ run: RunResult; lines: Array<Record<string, any>> }> {
  const run = await runCli([...args, ...SESSION_FLAGS, '--replay', tape], {
    cwd,
    env: { ANTHROPIC_BASE_URL: offline, ANTHROPIC_API_KEY: '' },
  });
  return { run, lines: run.code === 0 || run.stdout ? safeLines(run.stdout) : [] };
}

function safeLines(stdout: string): Array<Record<string, any>> {
  return parseLines(stdout);
}

export const read = (cwd: string, name = 'notes.txt'): string => readFileSync(path.join(cwd, name), 'utf8');
