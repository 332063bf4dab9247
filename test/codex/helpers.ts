/** What the Codex face tests share: the real Codex SDK pointed at agentpipe, and local model servers. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Codex, type CodexOptions, type ThreadEvent } from '@openai/codex-sdk';
import { ROOT, startCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import {
  openaiChunk,
  openaiUsage,
  OPENAI_DONE,
  startFakeServer,
  type FakeServer,
  type RecordedRequest,
  type Reply,
} from '../model/fake-servers.ts';

/** The launcher the SDK starts as its codex (`codexPathOverride`): agentpipe with its pinned Node. */
export const AGENTPIPE = path.join(ROOT, 'agentpipe');

/** A working folder (a git repository, as codex expects) and a throwaway AGENTPIPE_HOME. */
export function codexDirs(prefix: string): { cwd: string; home: string } {
  const root = scratchDir(`codex-${prefix}-`);
  const cwd = path.join(root, 'work');
  const home = path.join(root, 'home');
  mkdirSync(path.join(cwd, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  return { cwd, home };
}

/** The environment of the SDK's child: this process's, with agentpipe's home and no model keys. */
export function sdkEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  delete env.CODEX_API_KEY;
  delete env.OPENAI_BASE_URL;
  return { ...env, AGENTPIPE_HOME: home, HOME: home, ...extra };
}

/** The SDK on agentpipe with a scripted model (`turns`). */
export function scriptedCodex(dir: { cwd: string; home: string }, turns: unknown[], o: CodexOptions = {}): Codex {
  const script = path.join(dir.home, `script-${Date.now()}-${Math.random()}.json`);
  writeFileSync(script, JSON.stringify({ turns }));
  return new Codex({
    codexPathOverride: AGENTPIPE,
    env: sdkEnv(dir.home),
    config: { agentpipe: { script } },
    ...o,
  });
}

/** Every event of a streamed turn. */
export async function collectEvents(events: AsyncGenerator<ThreadEvent>): Promise<ThreadEvent[]> {
  const all: ThreadEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** `type` of each event, with the item's type: `item.completed:agent_message`. */
export function eventKinds(events: ThreadEvent[]): string[] {
  return events.map((e) => ('item' in e ? `${e.type}:${e.item.type}` : e.type));
}

/** One chat-completions answer of the OpenAI-compatible fake: text, one tool call, or text and then no end. */
export type ChatReply = { text: string } | { tool: string; args: Record<string, unknown> } | { hang: string };

/** The OpenAI-compatible fake, with a wait for its n-th request. */
export interface ChatServer extends FakeServer {
  /** Resolves with the n-th request (from 1) once it has arrived. */
  arrived(n: number): Promise<RecordedRequest>;
}

/** A local OpenAI-compatible server answering the n-th request with `replies[n]` (the last repeats). */
export async function chatCompletionsServer(replies: ChatReply[]): Promise<ChatServer> {
  let n = 0;
  const waiters: Array<{ n: number; resolve: (r: RecordedRequest) => void }> = [];
  const server = await startFakeServer((request): Reply => {
    const reply = replies[Math.min(n++, replies.length - 1)]!;
    for (const w of waiters.filter((w) => w.n === n)) w.resolve(request);
    if ('hang' in reply)
      return { kind: 'sse', frames: [openaiChunk({ role: 'assistant', content: reply.hang })], then: 'hang' };
    const frames =
      'text' in reply
        ? [openaiChunk({ role: 'assistant', content: reply.text }), openaiChunk({}, 'stop')]
        : [
            openaiChunk({
              role: 'assistant',
              tool_calls: [
                {
                  index: 0,
                  id: `call_${n}`,
                  type: 'function',
                  function: { name: reply.tool, arguments: JSON.stringify(reply.args) },
                },
              ],
            }),
            openaiChunk({}, 'tool_calls'),
          ];
    return { kind: 'sse', frames: [...frames, openaiUsage(100, 10, 20), OPENAI_DONE] };
  });
  const arrived = (at: number) =>
    server.requests[at - 1]
      ? Promise.resolve(server.requests[at - 1]!)
      : new Promise<RecordedRequest>((resolve) => waiters.push({ n: at, resolve }));
  return { ...server, arrived };
}

/** `agentpipe app-server --listen ws://127.0.0.1:0` with `args`; resolves with its URL once it listens. */
export async function wsAppServer(
  dir: { cwd: string; home: string },
  args: string[],
  env: Record<string, string> = {},
) {
  const child = startCli(['app-server', '--listen', 'ws://127.0.0.1:0', '--model', 'scripted', ...args], {
    cwd: dir.cwd,
    env: { ...sdkEnv(dir.home), ...env },
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const match = /listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('close', () => reject(new Error(`app-server exited: ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    url,
    stderr: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
