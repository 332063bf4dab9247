/** The agent's terminals (`terminal/*`): its commands run in the session's sandbox, in process groups. */
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { RunningGroup } from '../../process/run.ts';
import { defaultSandbox } from '../../sandbox/config.ts';
import type { HarnessConfig } from '../types.ts';
import { STOP_GRACE_MS } from './shared.ts';

/** Output kept per terminal when the agent sets no `outputByteLimit`. */
const TERMINAL_OUTPUT_BYTES = 1024 * 1024;

/** One command the agent runs through `terminal/create`. */
interface Terminal {
  group: RunningGroup;
  output: string;
  truncated: boolean;
  limit: number;
  exit?: { exitCode: number | null; signal: string | null };
  done: Promise<{ exitCode: number | null; signal: string | null }>;
}

/** The last `limit` bytes of `text`, cut at a character boundary. */
export function tailBytes(text: string, limit: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= limit) return text;
  let start = buffer.length - limit;
  while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start++;
  return buffer.subarray(start).toString('utf8');
}

/** The agent's terminals (`terminal/*`): process groups with their output, stdout and stderr together. */
export class Terminals {
  readonly #all = new Map<string, Terminal>();
  readonly #config: HarnessConfig;
  #next = 0;

  constructor(config: HarnessConfig) {
    this.#config = config;
  }

  async create(params: {
    command: string;
    args?: string[];
    env?: Array<{ name: string; value: string }>;
    cwd?: string | null;
    outputByteLimit?: number | null;
  }): Promise<{ terminalId: string }> {
    const env = { ...this.#config.env };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const cwd = params.cwd ? path.resolve(this.#config.cwd, params.cwd) : this.#config.cwd;
    const limit = params.outputByteLimit ?? TERMINAL_OUTPUT_BYTES;
    const shown: Pick<Terminal, 'output' | 'truncated' | 'limit' | 'exit'> = { output: '', truncated: false, limit };
    // The agent's commands run in the session's sandbox too (workspace profile: the agent was allowed to run them).
    const { startSandboxed } = await import('../../sandbox/run.ts');
    const group = await startSandboxed(this.#config.sandbox ?? defaultSandbox(this.#config.cwd), {
      profile: 'workspace',
      // Without arguments the command is a shell line (agents send both forms).
      command: params.args?.length ? [params.command, ...params.args] : params.command,
      cwd,
      env,
      cap: 0,
      graceMs: STOP_GRACE_MS,
      onOutput: (_stream, chunk) => {
        shown.output += chunk;
        if (shown.output.length > shown.limit) {
          const kept = tailBytes(shown.output, shown.limit);
          if (kept !== shown.output) shown.truncated = true;
          shown.output = kept;
        }
      },
    });
    const done = group.done.then((result) => {
      shown.exit = { exitCode: result.code ?? (result.error ? 127 : null), signal: result.exitSignal };
      if (result.error) shown.output += `${result.error.message}\n`;
      return shown.exit;
    });
    const terminal: Terminal = Object.assign(shown, { group, done });
    const terminalId = `term_${++this.#next}`;
    this.#all.set(terminalId, terminal);
    return { terminalId };
  }

  async output(
    terminalId: string,
  ): Promise<{ output: string; truncated: boolean; exitStatus?: { exitCode: number | null; signal: string | null } }> {
    const terminal = this.#find(terminalId);
    return {
      output: terminal.output,
      truncated: terminal.truncated,
      ...(terminal.exit ? { exitStatus: terminal.exit } : {}),
    };
  }

  async waitForExit(terminalId: string): Promise<{ exitCode: number | null; signal: string | null }> {
    return this.#find(terminalId).done;
  }

  async kill(terminalId: string): Promise<Record<string, never>> {
    const terminal = this.#find(terminalId);
    if (!terminal.exit) terminal.group.stop('aborted');
    return {};
  }

  async release(terminalId: string): Promise<Record<string, never>> {
    const terminal = this.#find(terminalId);
    if (!terminal.exit) terminal.group.stop('aborted');
    this.#all.delete(terminalId);
    return {};
  }

  /** The output of a terminal a tool call shows (undefined once released). */
  textOf(terminalId: string): string | undefined {
    return this.#all.get(terminalId)?.output;
  }

  /** Stops every terminal (the agent is gone or the harness closes). */
  stopAll(): void {
    for (const terminal of this.#all.values()) if (!terminal.exit) terminal.group.stop('aborted');
    this.#all.clear();
  }

  #find(terminalId: string): Terminal {
    const terminal = this.#all.get(terminalId);
    if (!terminal) throw acp.RequestError.resourceNotFound(terminalId);
    return terminal;
  }
}
