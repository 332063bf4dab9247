/**
 * Structured output (`--json-schema`, `outputFormat: {type: 'json_schema', schema}`), two ways:
 * - As Claude Code: the model calls the `StructuredOutput` tool (its input schema is the schema)
 *   with the answer. A valid call answers "Structured output provided successfully" and ends the
 *   prompt right after that turn's calls, the input being `structured_output` and its JSON the
 *   result text; an invalid one is an error result in Claude Code's words, and the model goes on.
 * - A model that answers in text instead: the JSON is taken from the final text (a bare value, or
 *   the first ```json fence). When it does not validate, the model is told what is wrong (a
 *   synthetic user message with ajv's errors) and goes again, up to a limit; then the prompt ends
 *   with `error_max_structured_output_retries`.
 * ajv is loaded only when a schema is set.
 */
import { errorMessage } from '../process/errors.ts';
import { userMessage } from '../messages/user.ts';
import type { MessageParam } from '../messages/types.ts';
import { compileJsonSchema, type AjvValidate } from '../tools/schema.ts';
import type { Tool } from '../tools/types.ts';
import type { AgentContext } from './context.ts';
import { runAgentLoop, type LoopOutcome, type LoopResume, type RunState } from './loop.ts';

export const DEFAULT_STRUCTURED_OUTPUT_RETRIES = 3;

/** Checks a value against the schema: `undefined` when valid, else the errors, one per line. */
export type SchemaCheck = (value: unknown) => string | undefined;

const compiled = new WeakMap<object, SchemaCheck>();

/** Compiles a schema with ajv (throws a clear error for an invalid schema). */
export async function compileSchema(schema: Record<string, unknown>): Promise<SchemaCheck> {
  const cached = compiled.get(schema);
  if (cached) return cached;
  let validate: AjvValidate;
  try {
    validate = await compileJsonSchema(schema);
  } catch (error) {
    throw new Error(`invalid JSON schema: ${errorMessage(error)}`);
  }
  const check: SchemaCheck = (value) =>
    validate(value)
      ? undefined
      : (validate.errors ?? [])
          .map((e) => {
            const params = e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : '';
            return `- ${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${params}`;
          })
          .join('\n');
  compiled.set(schema, check);
  return check;
}

/** The name of Claude Code's structured output tool. */
export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';
/** Its answer to a valid call (the tool result and `tool_use_result`). */
const PROVIDED = 'Structured output provided successfully';

/** The `StructuredOutput` tool for `schema`, as Claude Code 2.1.197 defines it (read from its binary). */
export async function structuredOutputTool(schema: Record<string, unknown>): Promise<Tool> {
  const validate = await compileJsonSchema(schema);
  return {
    name: STRUCTURED_OUTPUT_TOOL,
    description:
      'Use this tool to return your final response in the requested structured format. You MUST call this tool ' +
      'exactly once at the end of your response to provide the structured output.',
    inputSchema: schema,
    isReadOnly: () => true,
    needsNoPermission: true,
    async call(input) {
      if (!validate(input)) {
        const errors = (validate.errors ?? []).map((e) => `${e.instancePath || 'root'}: ${e.message ?? 'is invalid'}`);
        return { content: `Output does not match required schema: ${errors.join(', ')}`, isError: true };
      }
      return { content: PROVIDED, data: PROVIDED, structuredOutput: input };
    },
  };
}

/** The instruction added to the system prompt. */
export function schemaInstruction(schema: Record<string, unknown>): string {
  return (
    `When you give your final answer, reply with only a JSON value (no prose, no code fence) that is valid ` +
    `against this JSON Schema:\n${JSON.stringify(schema)}`
  );
}

/** The JSON value of a final answer. */
export function parseFinalJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text);
  const candidate = (fenced ? fenced[1] : text).trim();
  try {
    return { ok: true, value: JSON.parse(candidate) };
  } catch (error) {
    return { ok: false, error: `the final answer is not JSON (${errorMessage(error)})` };
  }
}

export type StructuredOutcome = LoopOutcome & { structuredOutput?: unknown };

/** Runs the loop until its final answer validates, or the retries are spent. */
export async function runWithSchema(
  ctx: AgentContext,
  history: MessageParam[],
  run: RunState,
  schema: Record<string, unknown>,
  maxRetries = DEFAULT_STRUCTURED_OUTPUT_RETRIES,
  resume?: LoopResume,
): Promise<StructuredOutcome> {
  const check = await compileSchema(schema);
  // Offered for this run (a schema set by initialize comes after the tools were listed).
  const offered = !ctx.tools.some((t) => t.name === STRUCTURED_OUTPUT_TOOL);
  if (offered) ctx.tools.push(await structuredOutputTool(schema));
  try {
    return await untilValid(ctx, history, run, check, maxRetries, resume);
  } finally {
    if (offered)
      ctx.tools.splice(
        ctx.tools.findIndex((t) => t.name === STRUCTURED_OUTPUT_TOOL),
        1,
      );
  }
}

async function untilValid(
  ctx: AgentContext,
  history: MessageParam[],
  run: RunState,
  check: SchemaCheck,
  maxRetries: number,
  resume?: LoopResume,
): Promise<StructuredOutcome> {
  const maxTurns = ctx.maxTurns;
  let numTurns = 0;
  let turns = 0;
  for (let attempt = 0; ; attempt++) {
    const left = maxTurns === undefined ? undefined : maxTurns - turns;
    const outcome = await runAgentLoop(ctx, history, run, left, attempt === 0 ? resume : undefined);
    numTurns += outcome.numTurns;
    turns += outcome.turns;
    const totals = { numTurns, turns };
    if (outcome.subtype !== 'success' || outcome.structuredOutput !== undefined) return { ...outcome, ...totals };
    const parsed = parseFinalJson(outcome.text);
    const problem = parsed.ok ? check(parsed.value) : parsed.error;
    if (problem === undefined && parsed.ok) return { ...outcome, ...totals, structuredOutput: parsed.value };
    if (attempt >= maxRetries) {
      return {
        ...outcome,
        ...totals,
        subtype: 'error_max_structured_output_retries',
        errors: [`The final answer did not match the JSON schema after ${maxRetries} retries:\n${problem}`],
      };
    }
    if (maxTurns !== undefined && turns >= maxTurns) {
      return {
        ...outcome,
        ...totals,
        subtype: 'error_max_turns',
        terminalReason: 'max_turns',
        errors: [`Reached maximum number of turns (${maxTurns})`],
      };
    }
    const text =
      `Your final answer does not match the required JSON schema:\n${problem}\nReply again with only a JSON ` +
      `value that is valid against the schema.`;
    history.push({ role: 'user', content: [{ type: 'text', text }] });
    await ctx.emit(userMessage([{ type: 'text', text }], ctx.sessionId, ctx.parentToolUseId, { isSynthetic: true }));
  }
}
