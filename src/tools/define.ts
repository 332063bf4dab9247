/**
 * Custom tools for the library: `defineTool(name, {description, parameters, handler})`.
 * The input is checked against the schema first (a mismatch is a clear `is_error` result the
 * model can correct); the handler returns a string or a structured result whose fields each
 * have a visible effect (see `ToolResultObject`).
 */
import type { ImageBlock, ImageMediaType, TextBlock } from '../messages/types.ts';
import { parameterSchema } from './schema.ts';
import type { Tool, ToolResult } from './types.ts';

/** A binary result (base64) for the model: images reach it as image blocks. */
export interface ToolBinaryResult {
  data: string;
  mimeType: string;
  type?: string;
  description?: string;
}

/** The structured result of a custom tool. */
export interface ToolResultObject {
  /** What the model reads. */
  textResultForLlm?: string;
  /** Images (and other binary data, described in text) for the model. */
  binaryResultsForLlm?: ToolBinaryResult[];
  /** `failure` is an `is_error` result; `rejected` and `denied` also count in `result.permission_denials`. */
  resultType?: 'success' | 'failure' | 'rejected' | 'denied';
  /** Why it failed (shown to the model when there is no `textResultForLlm`). */
  error?: string;
  /** For the client only: kept out of the model's context (in `tool_use_result`). */
  sessionLog?: string;
  /** Metrics of the call, in the tool's completion (`tool_use_result.toolTelemetry`). */
  toolTelemetry?: Record<string, unknown>;
}

/** What a handler gets besides its input. */
export interface ToolInvocation {
  signal: AbortSignal;
  cwd: string;
  sessionId: string;
  toolUseId: string;
  toolName: string;
  /** Partial output while the tool runs (shown in `tool_progress`). */
  onOutput?: (text: string) => void;
}

export interface DefineToolOptions<Input> {
  description: string;
  /** A zod schema (or any Standard Schema with JSON Schema support) or a JSON Schema object. */
  parameters?: unknown;
  handler(input: Input, invocation: ToolInvocation): unknown;
  /** True when the tool changes nothing (allowed without asking in the default mode). */
  readOnly?: boolean;
}

const RESULT_FIELDS = ['textResultForLlm', 'binaryResultsForLlm', 'resultType', 'sessionLog', 'toolTelemetry'];

export function defineTool<Input = Record<string, unknown>>(name: string, options: DefineToolOptions<Input>): Tool {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    throw new TypeError(`defineTool: invalid tool name ${JSON.stringify(name)} (letters, digits, _ and -, at most 64)`);
  if (typeof options?.handler !== 'function') throw new TypeError(`defineTool ${name}: handler must be a function`);
  const schema = parameterSchema(options.parameters);
  return {
    name,
    description: options.description,
    inputSchema: schema.json,
    isReadOnly: () => options.readOnly === true,
    async call(input, context): Promise<ToolResult> {
      const checked = await schema.validate(input);
      if (!checked.ok) return { content: `Invalid input for ${name}: ${checked.error}`, isError: true };
      const output = await options.handler(checked.value as Input, {
        signal: context.signal,
        cwd: context.cwd,
        sessionId: context.sessionId,
        toolUseId: context.toolUseId,
        toolName: name,
        onOutput: context.onOutput,
      });
      return toToolResult(name, output);
    },
  };
}

/** A handler's return value → the tool result. */
export function toToolResult(name: string, output: unknown): ToolResult {
  if (typeof output === 'string') return { content: output };
  if (output === undefined || output === null) return { content: '' };
  if (typeof output !== 'object' || !RESULT_FIELDS.some((f) => f in output)) return { content: JSON.stringify(output) };
  const result = output as ToolResultObject;
  const type = result.resultType ?? 'success';
  const text =
    result.textResultForLlm ??
    (type === 'success' ? '' : (result.error ?? `${name} ${type === 'failure' ? 'failed' : `was ${type}`}`));
  const blocks: Array<TextBlock | ImageBlock> = text ? [{ type: 'text', text }] : [];
  for (const binary of result.binaryResultsForLlm ?? []) {
    if (binary.mimeType?.startsWith('image/'))
      blocks.push({
        type: 'image',
        source: { type: 'base64', media_type: binary.mimeType as ImageMediaType, data: binary.data },
      });
    else
      blocks.push({
        type: 'text',
        text:
          `[${binary.type ?? 'binary'} ${binary.mimeType}${binary.description ? `: ${binary.description}` : ''}, ` +
          `${Math.round((binary.data.length * 3) / 4)} bytes]`,
      });
  }
  const onlyText = blocks.every((b) => b.type === 'text');
  const denied = type === 'rejected' || type === 'denied';
  return {
    content: onlyText ? blocks.map((b) => (b as TextBlock).text).join('\n') : blocks,
    ...(type !== 'success' ? { isError: true } : {}),
    ...(denied ? { denied: result.error ?? text } : {}),
    data: {
      resultType: type,
      ...(result.error !== undefined ? { error: result.error } : {}),
      ...(result.sessionLog !== undefined ? { sessionLog: result.sessionLog } : {}),
      ...(result.toolTelemetry !== undefined ? { toolTelemetry: result.toolTelemetry } : {}),
      ...(result.binaryResultsForLlm?.length
        ? {
            binaryResults: result.binaryResultsForLlm.map(({ mimeType, type: t, description }) => ({
              mimeType,
              type: t,
              description,
            })),
          }
        : {}),
    },
  };
}
