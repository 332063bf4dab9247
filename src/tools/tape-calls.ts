/**
 * Tool calls and a tape: recording (each call's input and result go on the tape as it finishes) and serving
 * (`--replay-tools tape`: a call is answered with the result the tape holds for its tool_use id, so nothing runs and
 * nothing changes). A tool that runs an agent (Task) always runs: its subagent's requests and tool calls are answered
 * from the tape in turn. A call the tape does not hold, or holds with another input, has left the tape.
 */
import type { ToolLine } from '../model/tape/format.ts';
import { describeDifference, firstDifference } from '../model/tape/diff.ts';
import type { Tool, ToolContext, ToolResult } from './types.ts';

/** One call as the runner hands it over. */
export interface ToolCall {
  tool: Tool;
  input: Record<string, unknown>;
  context: ToolContext;
  /** The tool runs an agent (Task): its work is model requests and tool calls of its own. */
  runsAgent: boolean;
}

/** Runs a call, or answers it some other way; `run` is the call itself. */
export type ToolCallRunner = (call: ToolCall, run: () => Promise<ToolResult>) => Promise<ToolResult>;

/** What the agent loop hands a tape of each tool call. */
export interface ToolCalls {
  /** A permitted call: runs it (`run`), or answers it some other way. */
  run: ToolCallRunner;
  /** A call the permission check (rules, mode, hooks, the client) denied, and why. */
  denied?(call: { name: string; input: Record<string, unknown>; toolUseId: string }, reason: string): void;
}

/** What a tool result becomes on the tape. */
function tapeResult(result: ToolResult): ToolLine['result'] {
  return {
    content: result.content,
    ...(result.isError !== undefined ? { is_error: result.isError } : {}),
    ...(result.data !== undefined ? { data: result.data } : {}),
    ...(result.denied !== undefined ? { denied: result.denied } : {}),
    ...(result.structuredOutput !== undefined ? { structured_output: result.structuredOutput } : {}),
  };
}

/** Records a denied call: its decision, and the reason the model was given. */
export function recordDenial(
  write: (line: ToolLine) => void,
  call: { name: string; input: Record<string, unknown>; toolUseId: string },
  reason: string,
): void {
  write({
    type: 'tool',
    tool_use_id: call.toolUseId,
    name: call.name,
    input: call.input,
    decision: 'deny',
    result: { content: reason, is_error: true, denied: reason },
  });
}

/** Records every call that runs (Task's too: its result is part of the story). */
export function recordingToolCalls(write: (line: ToolLine) => void): ToolCallRunner {
  return async (call, run) => {
    const line = {
      type: 'tool' as const,
      tool_use_id: call.context.toolUseId,
      name: call.tool.name,
      input: call.input,
      decision: 'allow' as const,
    };
    try {
      const result = await run();
      write({ ...line, result: tapeResult(result) });
      return result;
    } catch (error) {
      if (!call.context.signal.aborted)
        write({ ...line, result: { content: '', thrown: error instanceof Error ? error.message : String(error) } });
      throw error;
    }
  };
}

/** Answers calls from the tape until `live()` says the run went past its fork point. */
export function servingToolCalls(
  lines: ToolLine[],
  options: { file: string; onMismatch: (text: string) => string; live: () => boolean },
): ToolCallRunner {
  const byId = new Map(lines.filter((line) => line.decision !== 'deny').map((line) => [line.tool_use_id, line]));
  return async (call, run) => {
    if (call.runsAgent || options.live()) return run();
    const id = call.context.toolUseId;
    const line = byId.get(id);
    if (!line) {
      const text = options.onMismatch(
        `Replay: the tool call ${id} (${call.tool.name}) is not on the tape ${options.file}`,
      );
      return { content: text, isError: true };
    }
    const difference =
      line.name !== call.tool.name
        ? firstDifference(line.name, call.tool.name)
        : firstDifference(line.input, call.input);
    if (difference) {
      const text = options.onMismatch(
        `Replay: the tool call ${id} (${call.tool.name}) differs from the tape ${options.file}: ` +
          describeDifference({
            ...difference,
            path: difference.path === '(the whole value)' ? 'name' : `input.${difference.path}`,
          }),
      );
      return { content: text, isError: true };
    }
    const r = line.result;
    if (r.thrown !== undefined) throw new Error(r.thrown);
    return {
      content: r.content as ToolResult['content'],
      ...(r.is_error !== undefined ? { isError: r.is_error } : {}),
      ...(r.data !== undefined ? { data: r.data } : {}),
      ...(r.denied !== undefined ? { denied: r.denied } : {}),
      ...(r.structured_output !== undefined ? { structuredOutput: r.structured_output } : {}),
    };
  };
}
