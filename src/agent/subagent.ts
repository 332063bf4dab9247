/**
 * Runs a subagent: the same loop with a child context (its own prompt, tools and model) whose
 * messages all carry `parent_tool_use_id` = the Task call's id. It shares the parent's emit,
 * tool state, hooks, permissions, usage tracker and abort signal, so its usage and cost land in
 * the parent's result and an interrupt stops it too. Subagents may nest, to a bounded depth.
 */
import { errorMessage } from '../process/errors.ts';
import { emptySubagentStats, noteEnded, noteSpawned } from './subagent-stats.ts';
import { userMessage } from '../messages/user.ts';
import { newUuid } from '../messages/ids.ts';
import type {
  AgentMessage,
  TaskNotificationMessage,
  TaskProgressMessage,
  TaskStartedMessage,
} from '../messages/types.ts';
import { randomUUID } from 'node:crypto';
import type { ToolState } from '../tools/state.ts';
import type { ToolResult } from '../tools/types.ts';
import type { AgentContext } from './context.ts';
import { currentModel } from './fallback.ts';
import { fireHook } from './hooks.ts';
import { runAgentLoop, type LoopOutcome, type RunState } from './loop.ts';

/** A subagent definition (the official SDK's `AgentDefinition`, the fields agentpipe uses). */
export interface AgentDefinition {
  description: string;
  /** Its system prompt. */
  prompt: string;
  /** Tool names it may use (default: all of the parent's). */
  tools?: string[];
  disallowedTools?: string[];
  /** Model id; 'inherit' or absent: the parent's. */
  model?: string;
}

/** Always available when subagents are enabled. */
export const GENERAL_PURPOSE: AgentDefinition = {
  description: 'General-purpose agent for researching questions, searching code and carrying out multi-step tasks.',
  prompt:
    'You are a general-purpose agent working for another agent. Do the task you are given with the tools you have, ' +
    'then answer with a concise, complete report: your final message is all the other agent sees.',
};

export const MAX_SUBAGENT_DEPTH = 4;

type TaskEvent =
  | Omit<TaskStartedMessage, 'uuid' | 'session_id'>
  | Omit<TaskProgressMessage, 'uuid' | 'session_id'>
  | Omit<TaskNotificationMessage, 'uuid' | 'session_id'>;
const depthOf = new WeakMap<AgentContext, number>();

export async function runSubagent(
  parent: AgentContext,
  run: RunState,
  type: string,
  definition: AgentDefinition,
  prompt: string,
  toolUseId: string,
  description = type,
): Promise<ToolResult> {
  const depth = (depthOf.get(parent) ?? 0) + 1;
  if (depth > MAX_SUBAGENT_DEPTH)
    return { content: `Subagents may nest at most ${MAX_SUBAGENT_DEPTH} deep`, isError: true };
  run.subagents ??= emptySubagentStats();
  noteSpawned(run.subagents, type, depth);
  const agentId = randomUUID().replaceAll('-', '').slice(0, 17);
  const child = childContext(parent, run, definition, { type, agentId, toolUseId, prompt });
  depthOf.set(child, depth);
  const report = taskReport(parent, run, toolUseId, { description, subagent_type: type });
  child.emit = async (message) => {
    await parent.emit(message);
    await report.childMessage(message);
  };
  await report.emit({ type: 'system', subtype: 'task_started', ...report.task, task_type: 'local_agent', prompt });

  const start = await fireHook(
    child,
    'SubagentStart',
    { agent_id: agentId, agent_type: type },
    { signal: run.signal, matchValue: type },
  );
  const text = [prompt, ...start.additionalContext].join('\n\n');
  await parent.emit(userMessage([{ type: 'text', text }], child.sessionId, toolUseId));
  // The subagent can be stopped alone (`stop_task` with the Task call's id) or with the whole prompt.
  const stop = new AbortController();
  const onParentAbort = () => stop.abort(run.signal.reason);
  run.signal.addEventListener('abort', onParentAbort, { once: true });
  const tasks = runningTasks(parent.toolState);
  tasks.set(toolUseId, stop);
  let outcome;
  try {
    outcome = await runAgentLoop(child, [{ role: 'user', content: [{ type: 'text', text }] }], {
      ...run,
      signal: stop.signal,
    });
  } catch (error) {
    child.span?.end({ subtype: 'error_during_execution', errors: [errorMessage(error)] });
    noteEnded(run.subagents, stop.signal.aborted ? 'stopped' : 'failed');
    await report.end(stop.signal.aborted ? 'stopped' : 'failed', errorMessage(error));
    throw error;
  } finally {
    tasks.delete(toolUseId);
    run.signal.removeEventListener('abort', onParentAbort);
  }
  child.span?.end({ subtype: outcome.subtype, errors: outcome.errors, output: outcome.text });
  const status = stop.signal.aborted ? 'stopped' : outcome.subtype === 'success' ? 'completed' : 'failed';
  noteEnded(run.subagents, status);
  const summary =
    status === 'completed'
      ? outcome.text.slice(0, 500)
      : status === 'stopped'
        ? `The ${type} subagent was stopped`
        : outcome.errors.join('; ');
  await report.end(status, summary);
  if (stop.signal.aborted && !run.signal.aborted) {
    return {
      content: `The ${type} subagent was stopped before it finished`,
      isError: true,
      data: { status: 'stopped', agentId, agentType: type, prompt },
    };
  }
  return subagentResult(outcome, run, report, { type, agentId, prompt });
}

/** Who a subagent is: its type, its id, the Task call that started it and the prompt it was given. */
interface SubagentIdentity {
  type: string;
  agentId: string;
  toolUseId: string;
  prompt: string;
}

/** The child context: the definition's prompt, tools and model, its messages attributed to the Task call. */
function childContext(
  parent: AgentContext,
  run: RunState,
  definition: AgentDefinition,
  { type, agentId, toolUseId, prompt }: SubagentIdentity,
): AgentContext {
  const child: AgentContext = {
    ...parent,
    system: definition.prompt,
    tools: parent.tools.filter(
      (t) => (!definition.tools || definition.tools.includes(t.name)) && !definition.disallowedTools?.includes(t.name),
    ),
    model: definition.model && definition.model !== 'inherit' ? definition.model : currentModel(parent, run),
    parentToolUseId: toolUseId,
    agent: { id: agentId, type },
  };
  child.span = parent.span?.subagent(toolUseId, { name: type, id: agentId, model: child.model, prompt });
  return child;
}

/** A subagent's live, attributed progress and its usage since it started. */
interface TaskReport {
  /** The fields every task message carries. */
  task: { task_id: string; tool_use_id: string; description: string; subagent_type: string };
  /** The parent's usage and cost when the subagent started. */
  before: { input: number; output: number; cost: number };
  started: number;
  emit(message: TaskEvent): Promise<void> | undefined;
  /** The task's tokens, tool uses and duration so far. */
  usage(): { total_tokens: number; tool_uses: number; duration_ms: number };
  /** Notes a message of the child: a task_progress after each of its tool calls. */
  childMessage(message: AgentMessage): Promise<void>;
  /** The task_notification that ends the task. */
  end(status: TaskNotificationMessage['status'], summary: string): Promise<void> | undefined;
}

/**
 * Live, attributed progress: task_started, a task_progress after each of its tool calls, task_notification at the
 * end.
 */
function taskReport(
  parent: AgentContext,
  run: RunState,
  toolUseId: string,
  names: { description: string; subagent_type: string },
): TaskReport {
  const before = {
    input: run.usage.usage.input_tokens,
    output: run.usage.usage.output_tokens,
    cost: run.usage.totalCostUsd,
  };
  const started = Date.now();
  const task = { task_id: toolUseId, tool_use_id: toolUseId, ...names };
  const emit = (message: TaskEvent) => parent.emit({ ...message, uuid: newUuid(), session_id: parent.sessionId });
  const progress: { toolUses: number; lastTool?: string } = { toolUses: 0 };
  const usage = () => ({
    total_tokens: run.usage.usage.input_tokens + run.usage.usage.output_tokens - before.input - before.output,
    tool_uses: progress.toolUses,
    duration_ms: Date.now() - started,
  });
  const childMessage = async (message: AgentMessage) => {
    // A nested subagent reports its own.
    if (!('parent_tool_use_id' in message) || message.parent_tool_use_id !== toolUseId) return;
    if (message.type === 'assistant')
      for (const block of message.message.content) if (block.type === 'tool_use') progress.lastTool = block.name;
    if (message.type !== 'user' || !Array.isArray(message.message.content)) return;
    const results = message.message.content.filter((b) => b.type === 'tool_result').length;
    if (results === 0) return;
    progress.toolUses += results;
    await emit({
      type: 'system',
      subtype: 'task_progress',
      ...task,
      usage: usage(),
      ...(progress.lastTool ? { last_tool_name: progress.lastTool } : {}),
    });
  };
  const end = (status: TaskNotificationMessage['status'], summary: string) =>
    emit({ type: 'system', subtype: 'task_notification', ...task, status, output_file: '', summary, usage: usage() });
  return { task, before, started, emit, usage, childMessage, end };
}

/** The Task call's result of a subagent that ran to its end. */
function subagentResult(
  outcome: LoopOutcome,
  run: RunState,
  report: TaskReport,
  { type, agentId, prompt }: Omit<SubagentIdentity, 'toolUseId'>,
): ToolResult {
  const { before, started } = report;
  const usage = {
    input_tokens: run.usage.usage.input_tokens - before.input,
    output_tokens: run.usage.usage.output_tokens - before.output,
  };
  const data = {
    status: outcome.subtype === 'success' ? 'completed' : 'failed',
    agentId,
    agentType: type,
    prompt,
    content: [{ type: 'text', text: outcome.text }],
    totalDurationMs: Date.now() - started,
    numTurns: outcome.numTurns,
    totalTokens: usage.input_tokens + usage.output_tokens,
    usage,
    totalCostUsd: run.usage.totalCostUsd - before.cost,
    ...(outcome.subtype === 'success' ? {} : { errors: outcome.errors, terminalReason: outcome.terminalReason }),
  };
  if (outcome.subtype === 'success') return { content: outcome.text || '(the subagent gave no answer)', data };
  return {
    content: `The ${type} subagent did not finish (${outcome.subtype}): ${outcome.errors.join('; ')}`,
    isError: true,
    data,
  };
}

/** Subagents running now, by the id of their Task call (what `stop_task` names). */
export function runningTasks(toolState: ToolState): Map<string, AbortController> {
  return toolState.runningTasks;
}
