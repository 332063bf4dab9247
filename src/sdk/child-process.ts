/**
 * The child-process engine of `query()`: the control protocol on top of a `StdioTransport`.
 * It writes the prompt's user messages, sends control requests, answers `can_use_tool` with the
 * options' callback, and yields the messages it reads.
 */
import { errorMessage } from '../process/errors.ts';
import { rmSync } from 'node:fs';
import type { ControlRequest, ControlResponse, OutboundRequest, PermissionResult } from '../messages/control.ts';
import type { AgentMessage } from '../messages/types.ts';
import type { OutputLineRead } from '../messages/output-line.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { childEnv, flagsFromOptions } from './cli-flags.ts';
import { Counter, promptMessages } from './prompt-input.ts';
import { StdioTransport } from './stdio-transport.ts';
import type { Engine, PromptMessage, QueryOptions } from './types.ts';

const STREAM_FLAGS = ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];

type Pending = { resolve: (r: Record<string, unknown> | undefined) => void; reject: (e: Error) => void };

export function startChildProcess(
  prompt: string | AsyncIterable<PromptMessage>,
  options: QueryOptions & { executable: string },
): Engine {
  const log = options.stderr ?? (() => {});
  const { args, tempFiles } = flagsFromOptions(options);
  const script = /\.(c|m)?(j|t)s$/.test(options.executable);
  const command = script ? process.execPath : options.executable;
  const argv = [
    ...(script ? [...(options.executableArgs ?? []), options.executable] : (options.executableArgs ?? [])),
    ...STREAM_FLAGS,
    ...args,
  ];
  const transport = new StdioTransport({
    command,
    args: argv,
    env: childEnv(options),
    cwd: options.cwd,
    onStderr: log,
  });
  const queue = new AsyncMessageQueue<AgentMessage>({ highWaterMark: 256 });
  const pending = new Map<string, Pending>();
  const results = new Counter();
  const aborts = new Map<string, AbortController>();
  let nextId = 0;

  async function feed(): Promise<void> {
    let sent = 0;
    try {
      for await (const message of promptMessages(prompt)) {
        if (!(await transport.send(message))) return;
        sent++;
      }
    } catch (error) {
      log(`agentpipe: prompt input failed: ${errorMessage(error)}`);
    }
    await results.reached(sent);
    transport.endInput();
  }

  async function answer(request: ControlRequest<OutboundRequest>): Promise<void> {
    let response: ControlResponse['response'];
    const abort = new AbortController();
    aborts.set(request.request_id, abort);
    try {
      if (request.request.subtype !== 'can_use_tool' || !options.canUseTool)
        throw new Error(`Unsupported control request subtype: ${request.request.subtype}`);
      const r = request.request;
      const decision: PermissionResult = await options.canUseTool(r.tool_name, r.input, {
        signal: abort.signal,
        toolUseId: r.tool_use_id,
        suggestions: r.permission_suggestions,
        parentToolUseId: null,
        ...(r.display_name !== undefined ? { displayName: r.display_name } : {}),
        ...(r.description !== undefined ? { description: r.description } : {}),
        ...(r.decision_reason !== undefined ? { decisionReason: r.decision_reason } : {}),
        ...(r.decision_reason_type !== undefined ? { decisionReasonType: r.decision_reason_type } : {}),
        ...(r.blocked_path !== undefined ? { blockedPath: r.blocked_path } : {}),
      });
      response = { subtype: 'success', request_id: request.request_id, response: { ...decision } };
    } catch (error) {
      response = { subtype: 'error', request_id: request.request_id, error: errorMessage(error) };
    } finally {
      aborts.delete(request.request_id);
    }
    await transport.send({ type: 'control_response', response });
  }

  /** Routes one line the CLI wrote: control traffic to its handler, messages to the queue. */
  async function route(line: OutputLineRead): Promise<void> {
    if (line.type === 'control_response') {
      const { response } = line;
      const entry = pending.get(response.request_id);
      pending.delete(response.request_id);
      if (response.subtype === 'success') entry?.resolve(response.response);
      else entry?.reject(new Error(response.error));
    } else if (line.type === 'control_request') void answer(line);
    else if (line.type === 'control_cancel_request') aborts.get(line.request_id)?.abort();
    else if (line.type === 'message') {
      await queue.push(line.message);
      if (line.message.type === 'result') results.add();
    }
  }

  async function read(): Promise<Error | undefined> {
    try {
      const { parseOutputLine } = await import('../messages/output-line.ts');
      for await (const text of transport.lines()) {
        const parsed = parseOutputLine(text);
        if (parsed.ok) await route(parsed.line);
        else log(`agentpipe: output line ignored (${parsed.error}): ${text.slice(0, 200)}`);
      }
      return undefined;
    } catch (error) {
      return new Error(`reading agentpipe's output failed: ${errorMessage(error)}`);
    }
  }

  void feed();
  void Promise.all([read(), transport.exited]).then(([readError, code]) => {
    for (const file of tempFiles) rmSync(file, { force: true });
    results.releaseAll();
    for (const entry of pending.values()) entry.reject(new Error('agentpipe exited'));
    pending.clear();
    const tail = transport.stderrTail.trim();
    if (transport.startError)
      queue.error(new Error(`cannot start ${options.executable}: ${transport.startError.message}`));
    else if (readError) queue.error(readError);
    // Stopped by our own SIGTERM (close()), agentpipe exits 143: that is how it was asked to end.
    else if (results.value === 0 && code !== 0 && !(transport.terminated && code === 143))
      queue.error(new Error(`agentpipe exited with code ${code}${tail ? `: ${tail}` : ''}`));
    else queue.done();
  });

  return {
    messages: queue,
    control(request) {
      if (!transport.writable)
        return Promise.reject(new Error(`cannot send ${request.subtype}: the session's input is closed`));
      const requestId = `sdk_req_${++nextId}`;
      return new Promise((resolve, reject) => {
        pending.set(requestId, { resolve, reject });
        transport.send({ type: 'control_request', request_id: requestId, request }).catch(reject);
      });
    },
    endInput: () => transport.endInput(),
    close() {
      void transport.close();
      void queue.return();
    },
  };
}
