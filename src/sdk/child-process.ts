/**
 * The child-process engine of `query()`: runs agentpipe's CLI with stream-json in and out,
 * writes the prompt's user messages, sends control requests, answers `can_use_tool` with the
 * options' callback, and yields the messages it reads.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { ControlRequest, ControlResponse, OutboundRequest, PermissionResult } from '../messages/control.ts';
import type { AgentMessage } from '../messages/types.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { readLines } from '../transport/ndjson.ts';
import { childEnv, flagsFromOptions } from './cli-flags.ts';
import { Counter, promptMessages } from './prompt-input.ts';
import type { Engine, PromptMessage, QueryOptions } from './types.ts';

const STREAM_FLAGS = ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];

export function startChildProcess(prompt: string | AsyncIterable<PromptMessage>, options: QueryOptions & { executable: string }): Engine {
  const log = options.stderr ?? (() => {});
  const { args, tempFiles } = flagsFromOptions(options);
  const script = /\.(c|m)?(j|t)s$/.test(options.executable);
  const command = script ? process.execPath : options.executable;
  const argv = [...(script ? [...(options.executableArgs ?? []), options.executable] : options.executableArgs ?? []), ...STREAM_FLAGS, ...args];
  const child = spawn(command, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv(options), cwd: options.cwd });
  const queue = new AsyncMessageQueue<AgentMessage>({ highWaterMark: 256 });
  const pending = new Map<string, { resolve: (r: Record<string, unknown> | undefined) => void; reject: (e: Error) => void }>();
  const results = new Counter();
  const aborts = new Map<string, AbortController>();
  let nextId = 0;
  let inputEnded = false;
  let stderrTail = '';

  const write = (line: object) => {
    if (!child.stdin.writable) return;
    child.stdin.write(`${JSON.stringify(line)}\n`);
  };
  const endInput = () => {
    if (inputEnded) return;
    inputEnded = true;
    child.stdin.end();
  };

  async function feed(): Promise<void> {
    let sent = 0;
    try {
      for await (const message of promptMessages(prompt)) {
        if (inputEnded) return;
        write(message);
        sent++;
      }
    } catch (error) {
      log(`agentpipe: prompt input failed: ${(error as Error).message}`);
    }
    await results.reached(sent);
    endInput();
  }

  async function answer(request: ControlRequest<OutboundRequest>): Promise<void> {
    let response: ControlResponse['response'];
    try {
      if (request.request.subtype !== 'can_use_tool' || !options.canUseTool) throw new Error(`Unsupported control request subtype: ${request.request.subtype}`);
      const { tool_name, input, tool_use_id } = request.request;
      const abort = new AbortController();
      aborts.set(request.request_id, abort);
      const decision: PermissionResult = await options.canUseTool(tool_name, input, { signal: abort.signal, toolUseId: tool_use_id, suggestions: [], parentToolUseId: null });
      response = { subtype: 'success', request_id: request.request_id, response: decision as unknown as Record<string, unknown> };
    } catch (error) {
      response = { subtype: 'error', request_id: request.request_id, error: (error as Error).message };
    } finally {
      aborts.delete(request.request_id);
    }
    write({ type: 'control_response', response });
  }

  async function read(): Promise<void> {
    const { parseOutputLine } = await import('../messages/output-line.ts');
    for await (const item of readLines(child.stdout)) {
      if (!('line' in item)) continue;
      const parsed = parseOutputLine(item.line);
      if (!parsed.ok) {
        log(`agentpipe: output line ignored (${parsed.error}): ${item.line.slice(0, 200)}`);
        continue;
      }
      const value = parsed.line;
      if (value.type === 'control_response') {
        const { response } = value;
        const entry = pending.get(response.request_id);
        pending.delete(response.request_id);
        if (response.subtype === 'success') entry?.resolve(response.response);
        else entry?.reject(new Error(response.error));
      } else if (value.type === 'control_request') void answer(value);
      else if (value.type === 'control_cancel_request') aborts.get(value.request_id)?.abort();
      else if (value.type === 'message') {
        await queue.push(value.message);
        if (value.message.type === 'result') results.add();
      }
    }
  }

  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-2000);
    for (const line of chunk.split('\n')) if (line) log(line);
  });
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => resolve(code));
    child.on('error', (error) => {
      log(`agentpipe: cannot start ${options.executable}: ${error.message}`);
      resolve(-1);
    });
  });
  void feed();
  void Promise.all([read().catch(() => {}), exited]).then(([, code]) => {
    for (const file of tempFiles) rmSync(file, { force: true });
    results.releaseAll();
    for (const entry of pending.values()) entry.reject(new Error('agentpipe exited'));
    if (results.value === 0 && code !== 0) queue.error(new Error(`agentpipe exited with code ${code}${stderrTail ? `: ${stderrTail.trim()}` : ''}`));
    else queue.done();
  });

  return {
    messages: queue,
    control(request) {
      if (inputEnded || child.exitCode !== null) return Promise.reject(new Error(`cannot send ${request.subtype}: the session's input is closed`));
      const requestId = `sdk_req_${++nextId}`;
      return new Promise((resolve, reject) => {
        pending.set(requestId, { resolve, reject });
        write({ type: 'control_request', request_id: requestId, request });
      });
    },
    endInput,
    close() {
      endInput();
      child.kill('SIGTERM');
      void queue.return();
    },
  };
}
