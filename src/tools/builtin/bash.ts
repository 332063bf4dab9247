/**
 * Bash: runs a command in its own process group under the session's folder. Output is capped
 * with a clear notice; a timeout or an abort kills the whole group (SIGTERM, then SIGKILL).
 */
import { spawn } from 'node:child_process';
import { optionalNumber, optionalString, requireString } from '../input.ts';
import type { Tool, ToolResult } from '../types.ts';
import { gitSafeEnv } from '../shell/git-env.ts';
import { isReadOnlyShell } from '../shell/facts.ts';

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
const KILL_GRACE_MS = 2_000;

/** Output cap in characters; `BASH_MAX_OUTPUT_LENGTH` overrides it, as in Claude Code. */
function outputCap(): number {
  const fromEnv = Number(process.env.BASH_MAX_OUTPUT_LENGTH);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 30_000;
}

/** Keeps the first `cap` characters and counts what was dropped. */
class CappedText {
  text = '';
  dropped = 0;
  readonly cap: number;
  constructor(cap: number) {
    this.cap = cap;
  }
  add(chunk: string): void {
    const room = this.cap - this.text.length;
    if (room >= chunk.length) this.text += chunk;
    else {
      if (room > 0) this.text += chunk.slice(0, room);
      this.dropped += chunk.length - Math.max(0, room);
    }
  }
  toString(): string {
    const text = this.text.replace(/\n$/, '');
    return this.dropped ? `${text}\n\n[output truncated: ${this.dropped} more characters not shown]` : text;
  }
}

export const bashTool: Tool = {
  name: 'Bash',
  description: 'Runs a bash command in the working folder and returns its output. Use `timeout` (ms, max 600000) for long commands.',
  inputSchema: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'The command to run' },
      timeout: { type: 'number', description: 'Timeout in milliseconds (default 120000, max 600000)' },
      description: { type: 'string', description: 'What the command does, in 5-10 words' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  shell: true,
  isReadOnly: async (input) => typeof input.command === 'string' && (await isReadOnlyShell(input.command)),
  async call(input, context): Promise<ToolResult> {
    const command = requireString(input, 'command');
    optionalString(input, 'description');
    const timeout = optionalNumber(input, 'timeout', 1, MAX_TIMEOUT_MS) ?? DEFAULT_TIMEOUT_MS;
    const cap = outputCap();
    const stdout = new CappedText(cap);
    const stderr = new CappedText(cap);
    // A line that runs without asking must not run programs named by repository config either.
    const env = (await isReadOnlyShell(command)) ? gitSafeEnv(process.env) : process.env;
    const child = spawn('bash', ['-c', command], { cwd: context.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    let reason: 'timeout' | 'interrupted' | undefined;
    const killGroup = (why: 'timeout' | 'interrupted') => {
      reason ??= why;
      signalGroup(child.pid, 'SIGTERM');
      setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const onAbort = () => killGroup('interrupted');
    context.signal.addEventListener('abort', onAbort, { once: true });
    if (context.signal.aborted) onAbort();
    const timer = setTimeout(() => killGroup('timeout'), timeout);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout.add(chunk);
      context.onOutput?.(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr.add(chunk);
      context.onOutput?.(chunk);
    });
    const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code }));
    });
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onAbort);
    // The shell may be gone while children it started hold on: end the whole group.
    signalGroup(child.pid, 'SIGKILL');

    const out = stdout.toString();
    const err = stderr.toString();
    const data = { stdout: out, stderr: err, interrupted: reason !== undefined, isImage: false, noOutputExpected: false, exitCode: exit.code };
    if (exit.error) return { content: `Failed to run bash: ${exit.error.message}`, isError: true, data };
    const body = [out, err].filter(Boolean).join('\n');
    if (reason === 'timeout') return { content: `${body}\nCommand timed out after ${timeout} ms and was killed`.trim(), isError: true, data };
    if (reason === 'interrupted') return { content: `${body}\nCommand was interrupted`.trim(), isError: true, data };
    if (exit.code !== 0) return { content: `${body}\nExit code ${exit.code ?? 'unknown'}`.trim(), isError: true, data };
    return { content: body || '(no output)', data };
  },
};

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
