/**
 * One answer's tool calls: read-only ones together (callBatches), at most CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY at a
 * time, every other call alone and in order; each result emitted as soon as it is there.
 */
import { INTERRUPTED_TOOLS } from '../messages/notices.ts';
import { envNumber } from '../process/env-number.ts';
import type { ToolUseBlock, UserContentBlock, UserMessage } from '../messages/types.ts';
import type { AgentContext } from './context.ts';
import { runToolCall, toolNamed } from './tool-runner.ts';
import type { RunState } from './loop.ts';

/**
 * Most tool calls of one model turn that run at the same time: CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY, default 10 (as
 * Claude Code).
 */
const maxToolConcurrency = () => envNumber('CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY', 10, { integer: true });

/** What one answer's tool calls gave. */
export interface BatchOutcome {
  /** By call id, in the order the calls finished. */
  results: Map<string, UserContentBlock>;
  interruptedByAnswer: boolean;
  /** PostToolUse hooks' context for the model, beside the results. */
  context: string[];
  hookStop?: string;
  structuredOutput?: unknown;
}

/**
 * Runs one answer's tool calls (read-only ones together, see callBatches), each result emitted as soon as it is there.
 */
export async function runToolBatch(
  ctx: AgentContext,
  run: RunState,
  uses: ToolUseBlock[],
  emitUser: (
    content: UserContentBlock[],
    extra?: Pick<UserMessage, 'tool_use_result' | 'tool_result_meta'>,
  ) => Promise<void>,
): Promise<BatchOutcome> {
  const out: BatchOutcome = { results: new Map(), interruptedByAnswer: false, context: [] };
  /** Runs one call (or says why it did not run) and emits its result as soon as it is there. */
  const runOne = async (use: ToolUseBlock): Promise<void> => {
    if (run.signal.aborted) {
      out.results.set(use.id, { type: 'tool_result', tool_use_id: use.id, content: INTERRUPTED_TOOLS, is_error: true });
      return;
    }
    if (out.hookStop !== undefined) {
      const block: UserContentBlock = {
        type: 'tool_result',
        tool_use_id: use.id,
        content: `Not run: a hook stopped the prompt (${out.hookStop})`,
        is_error: true,
      };
      out.results.set(use.id, block);
      await emitUser([block]);
      return;
    }
    const outcome = await runToolCall(ctx, use, run.signal, run);
    if (outcome.stop !== undefined) out.hookStop ??= outcome.stop;
    if (outcome.structuredOutput !== undefined) out.structuredOutput ??= outcome.structuredOutput;
    if (outcome.denied) run.denials.push({ tool_name: use.name, tool_use_id: use.id, tool_input: use.input });
    out.results.set(use.id, outcome.block);
    if (outcome.context) out.context.push(...outcome.context);
    await emitUser([outcome.block], {
      ...(outcome.data !== undefined ? { tool_use_result: outcome.data } : {}),
      ...(outcome.meta ? { tool_result_meta: [outcome.meta] } : {}),
    });
    if (outcome.interrupt) {
      out.interruptedByAnswer = true;
      run.interrupt();
    }
  };
  for (const batch of await callBatches(ctx, uses)) {
    if (batch.concurrent) await runConcurrently(batch.uses, maxToolConcurrency(), runOne);
    else for (const use of batch.uses) await runOne(use);
  }
  return out;
}

/**
 * The calls of one model turn in batches, as Claude Code runs them: consecutive calls that are
 * safe to run together (read-only: Read, Glob, Grep, read-only Bash, read-only MCP tools, Task)
 * form one concurrent batch; every other call runs alone, in order.
 */
async function callBatches(
  ctx: AgentContext,
  uses: ToolUseBlock[],
): Promise<Array<{ concurrent: boolean; uses: ToolUseBlock[] }>> {
  const batches: Array<{ concurrent: boolean; uses: ToolUseBlock[] }> = [];
  for (const use of uses) {
    const tool = toolNamed(ctx.tools, use.name);
    let safe = false;
    try {
      safe =
        uses.length > 1 &&
        tool !== undefined &&
        !('__invalid_input' in use.input) &&
        (await tool.isReadOnly(use.input));
    } catch {
      safe = false;
    }
    const last = batches.at(-1);
    if (safe && last?.concurrent) last.uses.push(use);
    else batches.push({ concurrent: safe, uses: [use] });
  }
  return batches;
}

/** Runs `task` on every item, at most `limit` at a time; settles when all have. */
async function runConcurrently<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
