/**
 * The fault-injection engine: seeded, reproducible random sessions against the real CLI, mixing
 * tool calls (with process groups), a provider that fails (500, 529, cut, stall) before it
 * answers, interrupts, signals (SIGINT, SIGTERM, SIGHUP), stdin closing at any point, permission
 * requests left unanswered, and two resumes of one session at once. Each run checks invariants;
 * `check()` returns what broke (empty when all held).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI_PATH } from '../helpers/cli.ts';
import {
  anthropicBlock,
  anthropicStream,
  startFakeServer,
  type FakeServer,
  type Reply,
} from '../model/fake-servers.ts';

/** A small seeded PRNG (mulberry32): the same seed gives the same session. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Line = Record<string, any>;
type Action = 'none' | 'interrupt' | 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'eof';

interface Outcome {
  lines: Line[];
  bad: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  timedOut: boolean;
}

const BOUND_MS = 25_000;

/** Runs the CLI with stream-json in and out; `drive` writes input and acts while it runs. */
function runCli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  drive: (child: ReturnType<typeof spawn>, lines: Line[]) => void,
): Promise<Outcome> {
  const child = spawn(
    process.execPath,
    [CLI_PATH, '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...args],
    {
      cwd,
      env: { ...process.env, ANTHROPIC_API_KEY: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const lines: Line[] = [];
  const bad: string[] = [];
  let buffer = '';
  let stderr = '';
  child.stdin!.on('error', () => {});
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const part of parts) {
      if (!part) continue;
      try {
        lines.push(JSON.parse(part) as Line);
      } catch {
        bad.push(part.slice(0, 200));
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  drive(child, lines);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, BOUND_MS);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (buffer) bad.push(`unterminated: ${buffer.slice(0, 200)}`);
      resolve({ lines, bad, code, signal, stderr, timedOut });
    }),
  );
}

const userLine = (text: string) =>
  JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' }) +
  '\n';

/** One random session; returns the broken invariants. */
export async function check(seed: number): Promise<string[]> {
  const rnd = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const root = path.join(os.tmpdir(), `agentpipe-fault-${process.pid}-${seed}`);
  const cwd = path.join(root, 'work');
  const home = path.join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(path.join(cwd, 'notes.txt'), 'a\nb\n');
  const pgids = path.join(root, 'pgids');
  const broken: string[] = [];
  let server: FakeServer | undefined;
  try {
    const prompts = 1 + Math.floor(rnd() * 3);
    const askPermission = rnd() < 0.3;
    const turns: Line[] = [];
    for (let i = 0; i < prompts; i++) {
      for (let t = Math.floor(rnd() * 3); t > 0; t--) {
        const tool = pick(['bash', 'slow', 'read', 'write'] as const);
        const call =
          tool === 'read'
            ? { name: 'Read', input: { file_path: 'notes.txt' } }
            : tool === 'write'
              ? { name: 'Write', input: { file_path: `w${i}${t}.txt`, content: 'x' } }
              : {
                  name: 'Bash',
                  input: {
                    command:
                      `echo $(ps -o pgid= $$) >> ${pgids}; ` + `sleep ${tool === 'slow' ? 5 : 0.05} & wait; echo done`,
                  },
                };
        turns.push({ text: 'Working.', tool_calls: [call] });
      }
      turns.push({ text: `Answer ${i}: ${'word '.repeat(20)}`, chunk_size: 7, delay_ms: 5 });
    }
    for (let i = 0; i < 4; i++) turns.push({ text: 'spare' });
    const script = path.join(root, 'script.json');
    writeFileSync(script, JSON.stringify({ turns }));
    // A provider that fails first, sometimes: the real Anthropic path against a local fake.
    const provider = rnd() < 0.3;
    let args = ['--model', 'scripted', '--script', script];
    let env: NodeJS.ProcessEnv = {
      AGENTPIPE_HOME: home,
      API_TIMEOUT_MS: '500',
      AGENTPIPE_STREAM_IDLE_TIMEOUT_MS: '500',
      AGENTPIPE_CONTROL_TIMEOUT_MS: '3000',
    };
    if (provider) {
      const fault: Reply = pick([
        { kind: 'json', status: 500, body: { type: 'error', error: { type: 'api_error', message: 'boom' } } },
        { kind: 'json', status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } } },
        { kind: 'sse', frames: [], then: 'destroy' },
        { kind: 'sse', frames: [], then: 'hang' },
      ] satisfies Reply[]);
      const ok: Reply = {
        kind: 'sse',
        frames: anthropicStream(
          [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'fine' }])],
          'end_turn',
        ),
      };
      let n = 0;
      server = await startFakeServer(() => (n++ % 2 === 0 ? fault : ok));
      args = ['--model', 'claude-sonnet-4-5'];
      env = { ...env, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-fault-0123456789' };
    }
    args.push(
      '--permission-mode',
      askPermission ? 'default' : 'bypassPermissions',
      ...(askPermission ? ['--permission-prompt-tool', 'stdio'] : []),
    );
    const action: Action = pick(['none', 'none', 'interrupt', 'SIGINT', 'SIGTERM', 'SIGHUP', 'eof'] as const);
    const actAfterMs = Math.floor(rnd() * 600);
    const answerPermission = rnd() < 0.5;
    let sentPrompts = 0;
    const outcome = await runCli(args, cwd, env, (child, lines) => {
      for (let i = 0; i < prompts; i++, sentPrompts++) child.stdin!.write(userLine(`prompt ${i}`));
      const answered = new Set<string>();
      const poll = setInterval(() => {
        for (const l of lines) {
          if (l.type !== 'control_request' || answered.has(l.request_id as string) || !answerPermission) continue;
          answered.add(l.request_id as string);
          child.stdin!.write(
            JSON.stringify({
              type: 'control_response',
              response: {
                subtype: 'success',
                request_id: l.request_id,
                response: { behavior: 'allow', updatedInput: l.request.input },
              },
            }) + '\n',
          );
        }
        // Every prompt got its result: the client ends its input.
        if (action !== 'eof' && lines.filter((l) => l.type === 'result').length >= prompts) child.stdin!.end();
      }, 20);
      child.on('close', () => clearInterval(poll));
      setTimeout(() => {
        if (action === 'interrupt')
          child.stdin!.write(
            JSON.stringify({ type: 'control_request', request_id: 'fault_int', request: { subtype: 'interrupt' } }) +
              '\n',
          );
        else if (action === 'eof') child.stdin!.end();
        else if (action !== 'none') child.kill(action);
      }, actAfterMs);
    });
    const permission = askPermission ? `, permission ${answerPermission ? 'answered' : 'unanswered'}` : '';
    const where =
      `seed ${seed} (${action} at ${actAfterMs} ms, ${prompts} prompts, ` +
      `${provider ? 'provider faults' : 'scripted'}${permission})`;
    if (outcome.timedOut) broken.push(`${where}: did not end within ${BOUND_MS} ms`);
    for (const line of outcome.bad) broken.push(`${where}: stdout line is not JSON: ${line}`);
    // Each prompt that started (system/init) ended with exactly one result, its last message.
    let open = false;
    let results = 0;
    for (const l of outcome.lines) {
      if (l.type === 'system' && l.subtype === 'init') {
        if (open) broken.push(`${where}: a prompt started before the previous one's result`);
        open = true;
      } else if (l.type === 'result') {
        if (!open) broken.push(`${where}: a result without a started prompt`);
        open = false;
        results++;
      } else if (!open && ['assistant', 'user', 'stream_event', 'tool_progress'].includes(l.type as string)) {
        broken.push(`${where}: a ${String(l.type)} message after its prompt's result`);
      }
    }
    if (open) broken.push(`${where}: a prompt without its result (exit ${outcome.code ?? outcome.signal})`);
    const calm = action === 'none' || action === 'interrupt';
    if (calm && results !== sentPrompts) broken.push(`${where}: ${results} results for ${sentPrompts} prompts`);
    // No tool process group outlives the run.
    if (existsSync(pgids)) {
      for (const pgid of readFileSync(pgids, 'utf8').split('\n').map(Number).filter(Boolean)) {
        let alive = true;
        for (let i = 0; i < 100 && alive; i++) {
          try {
            process.kill(-pgid, 0);
            await new Promise((r) => setTimeout(r, 20));
          } catch {
            alive = false;
          }
        }
        if (alive) {
          broken.push(`${where}: tool process group ${pgid} outlived agentpipe`);
          try {
            process.kill(-pgid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
    }
    // The transcript resumes (lock released), and two resumes at once do not interleave.
    const sessionId = outcome.lines.find((l) => typeof l.session_id === 'string')?.session_id as string | undefined;
    if (sessionId && results > 0) {
      const again = path.join(root, 'again.json');
      writeFileSync(again, JSON.stringify({ turns: [{ text: 'resumed' }, { text: 'resumed' }] }));
      const resume = () =>
        runCli(
          ['--model', 'scripted', '--script', again, '--resume', sessionId],
          cwd,
          { AGENTPIPE_HOME: home },
          (child) => child.stdin!.end(userLine('again')),
        );
      const both = rnd() < 0.3;
      const runs = await Promise.all(both ? [resume(), resume()] : [resume()]);
      const ok = runs.filter((r) => r.code === 0 && r.lines.at(-1)?.subtype === 'success').length;
      const refused = runs.filter((r) => r.code === 1 && /is in use by process/.test(r.stderr)).length;
      if (ok < 1 || ok + refused !== runs.length) {
        broken.push(
          `${where}: resume: ` +
            `${runs.map((r) => `exit ${r.code}: ${r.stderr.trim().split('\n').at(-1) ?? ''}`).join(' | ')}`,
        );
      }
    }
  } finally {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  }
  return broken;
}
