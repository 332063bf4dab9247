/**
 * The metrics: the GenAI client histograms (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`) and
 * Claude Code's counters under an `agentpipe.` prefix (sessions, tokens, cost, edit-tool decisions, lines changed).
 */
import { createNoopMeter, type Attributes, type Meter } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, DURATION_BUCKETS, GEN_AI, GEN_AI_METRICS, TOKEN_BUCKETS } from './semconv.ts';
import type { ChatUsage } from './types.ts';

/** The tools whose decisions `agentpipe.code_edit_tool.decision` counts (Claude Code's set). */
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

export class Metrics {
  readonly #tokens;
  readonly #duration;
  readonly #sessions;
  readonly #tokenCount;
  readonly #cost;
  readonly #decisions;
  readonly #lines;

  constructor(meter: Meter = createNoopMeter()) {
    this.#tokens = meter.createHistogram(GEN_AI_METRICS.tokenUsage, {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.#duration = meter.createHistogram(GEN_AI_METRICS.operationDuration, {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.#sessions = meter.createCounter('agentpipe.session.count', { description: 'Sessions started' });
    this.#tokenCount = meter.createCounter('agentpipe.token.usage', { description: 'Tokens used', unit: 'tokens' });
    this.#cost = meter.createCounter('agentpipe.cost.usage', {
      description: 'Cost of the model requests',
      unit: 'USD',
    });
    this.#decisions = meter.createCounter('agentpipe.code_edit_tool.decision', {
      description: 'Permission decisions on the file-editing tools',
    });
    this.#lines = meter.createCounter('agentpipe.lines_of_code.count', { description: 'Lines of code changed' });
  }

  chat(provider: string, model: string, response: { model: string; usage: ChatUsage; costUsd: number }, s: number) {
    const base: Attributes = {
      [GEN_AI.operationName]: 'chat',
      [GEN_AI.providerName]: provider,
      [GEN_AI.requestModel]: model,
      [GEN_AI.responseModel]: response.model,
    };
    const u = response.usage;
    this.#tokens.record(u.input_tokens, { ...base, [GEN_AI.tokenType]: 'input' });
    this.#tokens.record(u.output_tokens, { ...base, [GEN_AI.tokenType]: 'output' });
    this.#duration.record(s, base);
    const counts: Array<[string, number | null | undefined]> = [
      ['input', u.input_tokens],
      ['output', u.output_tokens],
      ['cacheRead', u.cache_read_input_tokens],
      ['cacheCreation', u.cache_creation_input_tokens],
    ];
    for (const [type, n] of counts) if (n) this.#tokenCount.add(n, { type, model });
    if (response.costUsd > 0) this.#cost.add(response.costUsd, { model });
  }

  chatFailed(provider: string, model: string, errorType: string, s: number): void {
    this.#duration.record(s, {
      [GEN_AI.operationName]: 'chat',
      [GEN_AI.providerName]: provider,
      [GEN_AI.requestModel]: model,
      [ATTR_ERROR_TYPE]: errorType,
    });
  }

  session(): void {
    this.#sessions.add(1);
  }

  decision(tool: string, behavior: 'allow' | 'deny', source: string): void {
    if (EDIT_TOOLS.has(tool))
      this.#decisions.add(1, { tool_name: tool, decision: behavior === 'allow' ? 'accept' : 'reject', source });
  }

  lines(added: number, removed: number): void {
    if (added) this.#lines.add(added, { type: 'added' });
    if (removed) this.#lines.add(removed, { type: 'removed' });
  }
}
