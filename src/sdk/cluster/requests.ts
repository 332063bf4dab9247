/**
 * The control traffic of a query on the worker pool: the worker's requests to the client
 * (`can_use_tool`, `hook_callback`), answered here with the query's `canUseTool` and `hooks`
 * (their answers go to the session's inbox), and the query's own requests (`interrupt`,
 * `set_model`...), answered by the worker through the log.
 */
import type { ControlRequest, OutboundRequest } from '../../messages/control.ts';
import { errorMessage } from '../../process/errors.ts';
import type { HookInput } from '../../tools/hooks/types.ts';
import type { QueryOptions } from '../types.ts';
import type { HookRegistry } from './options.ts';

type Pending = { resolve: (r: Record<string, unknown> | undefined) => void; reject: (e: Error) => void };

export class ControlTraffic {
  readonly #options: QueryOptions;
  readonly #hooks: HookRegistry;
  readonly #push: (lines: object[]) => Promise<void>;
  readonly #pending = new Map<string, Pending>();
  readonly #aborts = new Map<string, AbortController>();
  #next = 0;
  readonly #prefix: string;

  constructor(options: QueryOptions, hooks: HookRegistry, prefix: string, push: (lines: object[]) => Promise<void>) {
    this.#options = options;
    this.#hooks = hooks;
    this.#prefix = prefix;
    this.#push = push;
  }

  /** Sends a request of the query to the worker; resolves with the worker's answer. */
  request(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown> | undefined> {
    const requestId = `${this.#prefix}_${++this.#next}`;
    return new Promise((resolve, reject) => {
      this.#pending.set(requestId, { resolve, reject });
      this.#push([{ type: 'control_request', request_id: requestId, request }]).catch((error: unknown) => {
        this.#pending.delete(requestId);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  /** The worker's answer to one of the query's requests. */
  answered(
    requestId: string,
    response: { subtype: 'success'; response?: Record<string, unknown> } | { subtype: 'error'; error: string },
  ): void {
    const entry = this.#pending.get(requestId);
    this.#pending.delete(requestId);
    if (response.subtype === 'success') entry?.resolve(response.response);
    else entry?.reject(new Error(response.error));
  }

  /** The worker gave one of its requests up (its run was cut, or it timed out). */
  cancelled(requestId: string): void {
    this.#aborts.get(requestId)?.abort();
  }

  /** Answers a request of the worker (its answer goes to the inbox, unless `stopped`). */
  async answer(request: ControlRequest<OutboundRequest>, stopped: () => boolean): Promise<void> {
    const abort = new AbortController();
    this.#aborts.set(request.request_id, abort);
    let response: object;
    try {
      response = {
        subtype: 'success',
        request_id: request.request_id,
        response: await this.#payload(request, abort.signal),
      };
    } catch (error) {
      response = { subtype: 'error', request_id: request.request_id, error: errorMessage(error) };
    } finally {
      this.#aborts.delete(request.request_id);
    }
    if (!stopped()) await this.#push([{ type: 'control_response', response }]);
  }

  async #payload(request: ControlRequest<OutboundRequest>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const r = request.request;
    const { canUseTool } = this.#options;
    if (r.subtype === 'can_use_tool' && canUseTool)
      return {
        ...(await canUseTool(r.tool_name, r.input, {
          signal,
          toolUseId: r.tool_use_id,
          suggestions: r.permission_suggestions ?? [],
          parentToolUseId: null,
        })),
      };
    const callback = r.subtype === 'hook_callback' ? this.#hooks.callbacks.get(r.callback_id) : undefined;
    if (r.subtype === 'hook_callback' && callback)
      return { ...((await callback(r.input as HookInput, r.tool_use_id, { signal })) ?? {}) };
    // Registered by an earlier client of this session: said at once rather than left to time out.
    if (r.subtype === 'hook_callback') throw new Error(`no hook callback ${r.callback_id} in this client`);
    throw new Error(`Unsupported control request subtype: ${r.subtype}`);
  }

  /** The stream ended: every request waiting for the worker fails, every answer in progress is aborted. */
  end(why: string): void {
    for (const entry of this.#pending.values()) entry.reject(new Error(why));
    this.#pending.clear();
    for (const abort of this.#aborts.values()) abort.abort();
  }
}
