/**
 * The span handles of `./types.ts` on the OpenTelemetry API: `invoke_agent` for a prompt and each subagent, `chat`
 * for each model request (the only spans with usage), `execute_tool` for each tool call. Parents are passed
 * explicitly (a tool call's span is the parent of a subagent's), so no context manager is needed and concurrent
 * tool calls never see each other's context.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context as activeContext,
  createTraceState,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AGENTPIPE, ATTR_ERROR_TYPE, GEN_AI } from './semconv.ts';
import type { Metrics } from './metrics.ts';
import type { AgentInfo, AgentSpan, ChatSpan, ParentContext, ToolSpan } from './types.ts';

/** What may be exported besides the facts: prompts (OTEL_LOG_USER_PROMPTS), tool content (OTEL_LOG_TOOL_CONTENT). */
export interface ContentPolicy {
  prompts: boolean;
  tools: boolean;
}

const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;

/** The context a W3C `traceparent` names (ROOT when absent or malformed, as the W3C spec asks). */
export function contextOf(parent: ParentContext | undefined, fallback: Context = ROOT_CONTEXT): Context {
  const match = parent?.traceparent ? TRACEPARENT.exec(parent.traceparent.trim().toLowerCase()) : null;
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return fallback;
  let traceState;
  try {
    traceState = parent?.tracestate ? createTraceState(parent.tracestate) : undefined;
  } catch {
    traceState = undefined;
  }
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: match[2]!,
    spanId: match[3]!,
    traceFlags: parseInt(match[4]!, 16) & 1,
    isRemote: true,
    ...(traceState ? { traceState } : {}),
  });
}

/** The W3C `traceparent` of a span. */
export function traceparentOf(span: Span): string {
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** JSON of exported content, cut to a size backends accept. */
function contentText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 16_384 ? `${text.slice(0, 16_384)}…` : text;
}

/** Where spans go and what they may carry: shared by every span of a process. */
export interface SpanSink {
  tracer: Tracer;
  metrics: Metrics;
  content: ContentPolicy;
}

export class OtelAgentSpan implements AgentSpan {
  readonly #span: Span;
  readonly #context: Context;
  readonly #tools = new Map<string, Context>();
  readonly traceparent: string;
  readonly sink: SpanSink;
  readonly info: AgentInfo;

  /** `client`: a prompt this process hands to another (a cluster front end's, run by a worker). */
  constructor(sink: SpanSink, info: AgentInfo, parent: Context, kind: 'internal' | 'client' = 'internal') {
    this.sink = sink;
    this.info = info;
    const attributes: Record<string, string> = {
      [GEN_AI.operationName]: 'invoke_agent',
      [GEN_AI.providerName]: info.provider,
      [GEN_AI.agentName]: info.name,
      [GEN_AI.conversationId]: info.sessionId,
      [GEN_AI.requestModel]: info.model,
    };
    if (info.id) attributes[GEN_AI.agentId] = info.id;
    if (sink.content.prompts && info.prompt !== undefined) {
      attributes[GEN_AI.inputMessages] = contentText([
        { role: 'user', parts: [{ type: 'text', content: info.prompt }] },
      ]);
    }
    this.#span = sink.tracer.startSpan(
      `invoke_agent ${info.name}`,
      { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes },
      parent,
    );
    this.#context = trace.setSpan(parent, this.#span);
    this.traceparent = traceparentOf(this.#span);
  }

  chat(model: string, maxTokens?: number): ChatSpan {
    return new OtelChatSpan(this.sink, this.info, model, this.#context, maxTokens);
  }

  tool(call: { id: string; name: string; input: unknown; mcp?: boolean }): ToolSpan {
    const span = new OtelToolSpan(this.sink, call, this.#context);
    this.#tools.set(call.id, span.context);
    return span;
  }

  subagent(toolUseId: string, info: Omit<AgentInfo, 'sessionId' | 'provider'>): AgentSpan {
    const parent = this.#tools.get(toolUseId) ?? this.#context;
    return new OtelAgentSpan(
      this.sink,
      { ...info, sessionId: this.info.sessionId, provider: this.info.provider },
      parent,
    );
  }

  event(name: string, attributes?: Record<string, string | number | boolean>): void {
    this.#span.addEvent(name, attributes);
  }

  end(outcome: { subtype: string; costUsd?: number; errors?: string[]; output?: string }): void {
    this.#span.setAttribute(AGENTPIPE.resultSubtype, outcome.subtype);
    if (outcome.costUsd !== undefined) this.#span.setAttribute(AGENTPIPE.costUsd, outcome.costUsd);
    if (this.sink.content.prompts && outcome.output !== undefined)
      this.#span.setAttribute(
        GEN_AI.outputMessages,
        contentText([{ role: 'assistant', parts: [{ type: 'text', content: outcome.output }] }]),
      );
    if (outcome.subtype !== 'success') {
      this.#span.setAttribute(ATTR_ERROR_TYPE, outcome.subtype);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: (outcome.errors ?? []).join('; ').slice(0, 500) });
    }
    this.#span.end();
    this.#tools.clear();
  }
}

class OtelChatSpan implements ChatSpan {
  readonly #span: Span;
  readonly #started = performance.now();
  readonly sink: SpanSink;
  readonly agent: AgentInfo;
  readonly model: string;

  constructor(sink: SpanSink, agent: AgentInfo, model: string, parent: Context, maxTokens?: number) {
    this.sink = sink;
    this.agent = agent;
    this.model = model;
    const attributes: Record<string, string | number> = {
      [GEN_AI.operationName]: 'chat',
      [GEN_AI.providerName]: agent.provider,
      [GEN_AI.requestModel]: model,
      [GEN_AI.conversationId]: agent.sessionId,
    };
    if (maxTokens !== undefined) attributes[GEN_AI.requestMaxTokens] = maxTokens;
    this.#span = sink.tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes }, parent);
  }

  retry(attempt: number, delayMs: number, error: string): void {
    this.#span.addEvent('retry', { attempt, delay_ms: delayMs, [ATTR_ERROR_TYPE]: error });
  }

  end(response: Parameters<ChatSpan['end']>[0]): void {
    const span = this.#span;
    const u = response.usage;
    span.setAttributes({
      [GEN_AI.responseModel]: response.model,
      [GEN_AI.usageInputTokens]: u.input_tokens,
      [GEN_AI.usageOutputTokens]: u.output_tokens,
      [AGENTPIPE.costUsd]: response.costUsd,
    });
    if (u.cache_read_input_tokens) span.setAttribute(GEN_AI.usageCacheReadInputTokens, u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens)
      span.setAttribute(GEN_AI.usageCacheCreationInputTokens, u.cache_creation_input_tokens);
    if (response.id) span.setAttribute(GEN_AI.responseId, response.id);
    if (response.finishReason) span.setAttribute(GEN_AI.responseFinishReasons, [response.finishReason]);
    if (this.sink.content.prompts && response.output !== undefined)
      span.setAttribute(GEN_AI.outputMessages, contentText([{ role: 'assistant', parts: response.output }]));
    span.end();
    this.sink.metrics.chat(this.agent.provider, this.model, response, this.#seconds());
  }

  fail(error: string, errorType: string): void {
    this.#span.setAttribute(ATTR_ERROR_TYPE, errorType);
    this.#span.setStatus({ code: SpanStatusCode.ERROR, message: error.slice(0, 500) });
    this.#span.end();
    this.sink.metrics.chatFailed(this.agent.provider, this.model, errorType, this.#seconds());
  }

  #seconds(): number {
    return (performance.now() - this.#started) / 1000;
  }
}

class OtelToolSpan implements ToolSpan {
  readonly #span: Span;
  readonly context: Context;
  readonly traceparent: string;
  readonly sink: SpanSink;
  readonly call: { id: string; name: string; input: unknown; mcp?: boolean };

  constructor(sink: SpanSink, call: { id: string; name: string; input: unknown; mcp?: boolean }, parent: Context) {
    this.sink = sink;
    this.call = call;
    const attributes: Record<string, string> = {
      [GEN_AI.operationName]: 'execute_tool',
      [GEN_AI.toolName]: call.name,
      [GEN_AI.toolCallId]: call.id,
      [GEN_AI.toolType]: call.mcp ? 'extension' : 'function',
    };
    if (sink.content.tools) attributes[GEN_AI.toolCallArguments] = contentText(call.input);
    this.#span = sink.tracer.startSpan(`execute_tool ${call.name}`, { kind: SpanKind.INTERNAL, attributes }, parent);
    this.context = trace.setSpan(parent, this.#span);
    this.traceparent = traceparentOf(this.#span);
  }

  decision(behavior: 'allow' | 'deny' | 'ask', reason?: string, source?: string): void {
    this.#span.addEvent('permission', {
      'agentpipe.permission.decision': behavior,
      ...(reason !== undefined ? { 'agentpipe.permission.reason': reason } : {}),
      ...(source !== undefined ? { 'agentpipe.permission.source': source } : {}),
    });
    if (behavior !== 'ask') this.sink.metrics.decision(this.call.name, behavior, source ?? 'config');
  }

  end(outcome: { isError: boolean; exitCode?: number; output?: unknown }): void {
    if (outcome.exitCode !== undefined) this.#span.setAttribute(AGENTPIPE.exitCode, outcome.exitCode);
    if (this.sink.content.tools && outcome.output !== undefined)
      this.#span.setAttribute(GEN_AI.toolCallResult, contentText(outcome.output));
    if (outcome.isError) {
      this.#span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
      this.#span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.#span.end();
  }
}

/** The parent of a prompt: the given traceparent, else the caller's active context (a library caller's own span). */
export function promptParent(parent: ParentContext | undefined): Context {
  return contextOf(parent, activeContext.active());
}
