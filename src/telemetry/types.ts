/**
 * What the agent loop, the tool runner and the harnesses see of telemetry: small handles for the spans of one prompt,
 * in the OpenTelemetry GenAI conventions (`invoke_agent`, `chat`, `execute_tool`). No OpenTelemetry type appears
 * here, so the layers that call these load nothing when telemetry is off (the handles are then absent); the
 * implementation in `./spans.ts` is loaded with the SDK only when it is on (`./load.ts`).
 */

/** Token counts of one model response, as the Anthropic API names them. */
export interface ChatUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** One model request (`chat {model}`): the only spans that carry usage. */
export interface ChatSpan {
  /** A retry of the request after `error` (an event on the span). */
  retry(attempt: number, delayMs: number, error: string): void;
  /** The request finished: the response's model, id, usage, cost and finish reason. */
  end(response: {
    model: string;
    id?: string;
    usage: ChatUsage;
    costUsd: number;
    finishReason: string | null;
    /** The assistant's output, exported only with content logging on. */
    output?: unknown;
  }): void;
  /** The request failed for good or was interrupted. */
  fail(error: string, errorType: string): void;
}

/** One tool call (`execute_tool {tool}`). */
export interface ToolSpan {
  /** W3C `traceparent` of this span: what an MCP request's `_meta` or a child process carries. */
  readonly traceparent: string;
  /** The permission decision and its reason (an event). */
  decision(behavior: 'allow' | 'deny' | 'ask', reason?: string, source?: string): void;
  /** The call ended: `exitCode` for a shell command, the output only with content logging on. */
  end(outcome: { isError: boolean; exitCode?: number; output?: unknown }): void;
}

/** What an agent's span is about: the main agent of a prompt or a subagent. */
export interface AgentInfo {
  sessionId: string;
  model: string;
  /** `agentpipe` for the main agent; the subagent's type. */
  name: string;
  /** The subagent's id (absent for the main agent). */
  id?: string;
  /** `anthropic`, `openai`, `scripted`, a wrapped CLI's name. */
  provider: string;
  /** The prompt text, exported only with content logging on. */
  prompt?: unknown;
}

/** One agent's run (`invoke_agent {name}`): the prompt's root, or a subagent under its Task call. */
export interface AgentSpan {
  readonly traceparent: string;
  chat(model: string, maxTokens?: number): ChatSpan;
  tool(call: { id: string; name: string; input: unknown; mcp?: boolean }): ToolSpan;
  /** A subagent run under the Task call `toolUseId` (its span, a child of that call's span). */
  subagent(toolUseId: string, info: Omit<AgentInfo, 'sessionId' | 'provider'>): AgentSpan;
  /** Something that happened in the run (a hook, a compaction, a budget stop), as an event. */
  event(name: string, attributes?: Record<string, string | number | boolean>): void;
  /** The run ended: its outcome (`success`, an error subtype), cost and error texts. */
  end(outcome: { subtype: string; costUsd?: number; errors?: string[]; output?: string }): void;
}

/** A prompt's parent: a W3C `traceparent` (and `tracestate`) from outside, or none. */
export interface ParentContext {
  traceparent?: string;
  tracestate?: string;
}

/** Telemetry of a process or a library caller: starts prompt spans; flushed at the end of a session. */
export interface Telemetry {
  prompt(info: AgentInfo, parent?: ParentContext): AgentSpan;
  /**
   * A prompt this process hands to another that runs it (a cluster front end's prompt, run by a worker): an
   * `invoke_agent` span of kind CLIENT, as the GenAI conventions name a remote agent's; the runner's prompt span is
   * its child (its `traceparent` travels with the prompt). Only `traceparent`, `event` and `end` apply.
   */
  remotePrompt(info: AgentInfo, parent?: ParentContext): AgentSpan;
  /** A session started (`agentpipe.session.count`). */
  sessionStarted(sessionId: string): void;
  /** Lines an edit added and removed (`agentpipe.lines_of_code.count`). */
  linesChanged(added: number, removed: number): void;
  /** Sends what is queued; bounded in time, never throws. */
  flush(): Promise<void>;
  /** Flushes and stops the exporters this module set up (not a caller's own providers). */
  shutdown(): Promise<void>;
}

/**
 * The library's `telemetry` option: `true` sets up exporters from the standard OTEL_* variables; an object may bring
 * the caller's own providers (`tracerProvider`, `meterProvider` from `@opentelemetry/api`) and the parent context.
 */
export type TelemetryOption =
  | boolean
  | {
      /** Export prompts, tool inputs and outputs (off by default). */
      content?: boolean;
      /** A `TracerProvider` of the caller's own OpenTelemetry SDK (its exporters and processors are used). */
      tracerProvider?: unknown;
      /** A `MeterProvider` of the caller's own OpenTelemetry SDK. */
      meterProvider?: unknown;
      /** The parent of every prompt's span (default: the TRACEPARENT variable, else the caller's active context). */
      traceparent?: string;
      tracestate?: string;
    };
