/**
 * A front end's spans of its connection's prompts (telemetry on): each prompt a client sends gets an `invoke_agent
 * agentpipe` span of kind CLIENT (the prompt handed to a worker), a child of the `_meta.traceparent` the client sent,
 * and the prompt goes to the inbox with that span's context in its `_meta`: the worker's prompt span is its child, the
 * prompt line of the session log keeps it, and a worker that takes the turn over after a crash goes on in the same
 * trace. The span ends when the log shows the prompt's result (the prompt line names the prompt; the next main-agent
 * result is its); a `worker_lost` notice is an event of it.
 */
import type { LogMessage } from '../log/index.ts';
import type { AgentSpan, ParentContext, Telemetry } from '../../telemetry/types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The trace context of a client's `_meta`, when it names one. */
function parentOf(meta: unknown): ParentContext | undefined {
  if (!isObject(meta) || typeof meta.traceparent !== 'string') return undefined;
  return {
    traceparent: meta.traceparent,
    ...(typeof meta.tracestate === 'string' ? { tracestate: meta.tracestate } : {}),
  };
}

export class PromptSpans {
  readonly #telemetry: Telemetry;
  readonly #model: string;
  /** Spans of prompts sent and not answered yet, by prompt uuid. */
  readonly #open = new Map<string, AgentSpan>();
  /** The prompt the log shows running (its prompt line seen, its result not yet). */
  #running?: string;

  constructor(telemetry: Telemetry, model: string) {
    this.#telemetry = telemetry;
    this.#model = model;
  }

  /** Starts the span of a user message (with its uuid) for the inbox; the message to send (`_meta`: this span). */
  start(sessionId: string, user: Record<string, unknown> & { uuid: string }): Record<string, unknown> {
    // The same prompt sent again (the worker runs it once): the span it has.
    let span = this.#open.get(user.uuid);
    if (!span) {
      const message = isObject(user.message) ? user.message : {};
      span = this.#telemetry.remotePrompt(
        { sessionId, model: this.#model, name: 'agentpipe', provider: 'agentpipe', prompt: message.content },
        parentOf(user._meta),
      );
      this.#open.set(user.uuid, span);
    }
    const meta = isObject(user._meta) ? user._meta : {};
    return { ...user, _meta: { ...meta, traceparent: span.traceparent } };
  }

  /** A log entry on its way to the client: a prompt line, a worker_lost notice or a result moves the spans on. */
  seen(message: LogMessage): void {
    if (this.#open.size === 0) return;
    if (message.type === 'user' && 'agentpipe_prompt' in message && message.agentpipe_prompt) {
      if (this.#open.has(message.uuid)) this.#running = message.uuid;
      return;
    }
    const uuid = this.#running;
    const span = uuid === undefined ? undefined : this.#open.get(uuid);
    if (!span || uuid === undefined) return;
    if (message.type === 'system' && message.subtype === 'worker_lost') {
      span.event('agentpipe.worker_lost', {
        'agentpipe.worker': message.worker,
        ...(message.previous_worker ? { 'agentpipe.previous_worker': message.previous_worker } : {}),
        'agentpipe.unknown_tool_calls': message.unknown_tool_use_ids.length,
      });
      return;
    }
    if (message.type !== 'result' || ('parent_tool_use_id' in message && message.parent_tool_use_id)) return;
    // The prompt's own cost: total_cost_usd is the session's running total, its spend is since the last result.
    const since = message.model_usage_since_last_result;
    span.end({
      subtype: message.subtype,
      costUsd: since ? Object.values(since).reduce((sum, u) => sum + u.costUSD, 0) : message.total_cost_usd,
      ...('errors' in message ? { errors: message.errors } : {}),
      ...('result' in message ? { output: message.result } : {}),
    });
    this.#open.delete(uuid);
    this.#running = undefined;
  }

  /** The connection ended: the prompts still open go on on their worker, unanswered here. */
  close(why: string): void {
    for (const span of this.#open.values()) span.end({ subtype: 'connection_closed', errors: [why] });
    this.#open.clear();
  }
}
