/**
 * The control protocol of `query()` over a line transport (a child's stdio, a `serve` WebSocket): writes the prompt's
 * user messages, sends control requests, answers `can_use_tool` with the options' callback, and yields the messages
 * it reads. The transport frames and carries the lines; how its end is judged is the caller's (`failure`).
 */
import { errorMessage } from '../process/errors.ts';
import type { ControlRequest, ControlResponse, OutboundRequest, PermissionResult } from '../messages/control.ts';
import type { AgentMessage } from '../messages/types.ts';
import type { OutputLineRead } from '../messages/output-line.ts';
import { shownFromWire } from '../messages/prompt-shown.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { Counter, promptMessages } from './prompt-input.ts';
import type { Engine, PromptMessage, QueryOptions } from './types.ts';

/** One JSON line each way. */
export interface LineTransport {
  /** True while lines can still be sent. */
  readonly writable: boolean;
  /** Sends one JSON line; resolves once the transport can take more (false when its input is closed). */
  send(value: object): Promise<boolean>;
  /** The lines that come back, to the end of the transport (a read error rejects the iteration). */
  lines(): AsyncIterable<string>;
  /** No more input: the other side finishes its prompts, then ends. */
  endInput(): void;
  /** Stops now. */
  close(): Promise<void>;
}

type CanUseToolRequest = Extract<OutboundRequest, { subtype: 'can_use_tool' }>;
type ToolUseContext = Parameters<NonNullable<QueryOptions['canUseTool']>>[2];
type Pending = { resolve: (r: Record<string, unknown> | undefined) => void; reject: (e: Error) => void };

/**
 * Runs the protocol on `transport`. Once its lines end, `failure` says whether that was a failure (given the results
 * read): its error ends the message stream; `gone` names the other side in the error of a request left unanswered.
 */
export function startLineEngine(
  prompt: string | AsyncIterable<PromptMessage>,
  options: QueryOptions,
  transport: LineTransport,
  end: { failure: (results: number) => Promise<Error | undefined>; gone: string },
): Engine {
  const log = options.stderr ?? (() => {});
  const queue = new AsyncMessageQueue<AgentMessage>({ highWaterMark: 256 });
  const pending = new Map<string, Pending>();
  const results = new Counter();
  const aborts = new Map<string, AbortController>();
  let nextId = 0;

  /** Routes one line the CLI wrote: control traffic to its handler, messages to the queue. */
  async function route(line: OutputLineRead): Promise<void> {
    if (line.type === 'control_response') {
      const { response } = line;
      const entry = pending.get(response.request_id);
      pending.delete(response.request_id);
      if (response.subtype === 'success') entry?.resolve(response.response);
      else entry?.reject(new Error(response.error));
    } else if (line.type === 'control_request') void answer(line, options, transport, aborts);
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

  void feed(prompt, transport, results, log);
  void read().then(async (readError) => {
    results.releaseAll();
    for (const entry of pending.values()) entry.reject(new Error(end.gone));
    pending.clear();
    const error = readError ?? (await end.failure(results.value));
    if (error) queue.error(error);
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

/** Answers one control request of the other side (`can_use_tool`, with the options' callback; abortable by id). */
async function answer(
  request: ControlRequest<OutboundRequest>,
  options: QueryOptions,
  transport: LineTransport,
  aborts: Map<string, AbortController>,
): Promise<void> {
  let response: ControlResponse['response'];
  const abort = new AbortController();
  aborts.set(request.request_id, abort);
  try {
    if (request.request.subtype !== 'can_use_tool' || !options.canUseTool)
      throw new Error(`Unsupported control request subtype: ${request.request.subtype}`);
    const r = request.request;
    const decision: PermissionResult = await options.canUseTool(r.tool_name, r.input, toolUseContext(r, abort.signal));
    response = { subtype: 'success', request_id: request.request_id, response: { ...decision } };
  } catch (error) {
    response = { subtype: 'error', request_id: request.request_id, error: errorMessage(error) };
  } finally {
    aborts.delete(request.request_id);
  }
  await transport.send({ type: 'control_response', response });
}

/** The callback's context of a `can_use_tool` request: its wire fields in the SDK's names, those present only. */
function toolUseContext(r: CanUseToolRequest, signal: AbortSignal): ToolUseContext {
  return {
    signal,
    toolUseId: r.tool_use_id,
    suggestions: r.permission_suggestions,
    parentToolUseId: null,
    ...shownFromWire(r),
  };
}

/** Writes the prompt's messages, then ends the input once as many results came back as messages were sent. */
async function feed(
  prompt: string | AsyncIterable<PromptMessage>,
  transport: LineTransport,
  results: Counter,
  log: (line: string) => void,
): Promise<void> {
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
