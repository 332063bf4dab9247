/**
 * A call whose input does not fit its tool's schema, told as Claude Code 2.1.332 tells it (measured with the
 * differential suite, tools/invalid-input-*): the model reads `InputValidationError: Read failed due to the following
 * issue:\nThe required parameter `file_path` is missing` in `<tool_use_error>` tags, and `tool_use_result` is
 * `InputValidationError: ` with zod's issues as JSON. The check runs before the permission checks and hooks, as
 * Claude Code's does, so such a call has no `tool_result_meta`.
 *
 * `inputProblem` is cheap and runs on every call; zod (this module's only heavy part) loads only when it finds one.
 */

type Input = Record<string, unknown>;

/** The JSON Schema types `inputProblem` checks, and the test of each. */
const TYPES: Record<string, (value: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};

/**
 * True when `input` lacks a required member or has one of the wrong JSON type (top level). Members the schema does
 * not know are let through: a model may send Claude Code's parameters that agentpipe's tools lack.
 */
export function hasInputProblem(schema: Record<string, unknown>, input: Input): boolean {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  if (required.some((key) => typeof key === 'string' && input[key] === undefined)) return true;
  return Object.entries(input).some(([key, value]) => {
    const type = properties[key]?.type;
    return typeof type === 'string' && TYPES[type] !== undefined && value !== undefined && !TYPES[type](value);
  });
}

/** What the model and the client see of an invalid call. */
export interface InputValidationFailure {
  /** The tool result's text (without the `<tool_use_error>` tags). */
  text: string;
  /** `tool_use_result`. */
  data: string;
}

/** zod's issue, the members Claude Code's text reads. */
interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
}

/** The failure of `input` against `schema` (a JSON Schema), or undefined when zod finds it valid after all. */
export async function inputValidationFailure(
  toolName: string,
  schema: Record<string, unknown>,
  input: Input,
): Promise<InputValidationFailure | undefined> {
  const { z } = await import('zod');
  // Unknown members are not an issue here (see hasInputProblem).
  const parsed = z.fromJSONSchema({ ...schema, additionalProperties: true }).safeParse(input);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues as Issue[];
  return {
    text: `InputValidationError: ${describe(toolName, issues, parsed.error.message)}`,
    data: `InputValidationError: ${parsed.error.message}`,
  };
}

/** Claude Code's path: `a.b[0].c`. */
const pathText = (path: PropertyKey[]) =>
  path.reduce<string>(
    (text, key, i) => (typeof key === 'number' ? `${text}[${key}]` : i === 0 ? String(key) : `${text}.${String(key)}`),
    '',
  );

/** At most this many issues are listed, as in Claude Code. */
const LISTED = 20;

/** Claude Code's sentences for zod's issues (one a line), or zod's own JSON when none is a type issue. */
function describe(toolName: string, issues: Issue[], json: string): string {
  const typed = issues.filter((i) => i.code === 'invalid_type');
  if (typed.length === 0 && json.length <= 4000) return json;
  const missing = typed.filter((i) => i.message.includes('received undefined'));
  const wrong = typed.filter((i) => !i.message.includes('received undefined'));
  const lines = [
    ...missing.slice(0, LISTED).map((i) => `The required parameter \`${pathText(i.path)}\` is missing`),
    ...wrong.slice(0, Math.max(0, LISTED - missing.length)).map((i) => {
      const received = /received (\w+)/.exec(i.message)?.[1] ?? 'unknown';
      const name = pathText(i.path);
      return `The parameter \`${name}\` type is expected as \`${i.expected}\` but provided as \`${received}\``;
    }),
  ];
  const unlisted = typed.length - lines.length;
  if (unlisted > 0) lines.push(`(${unlisted} more parameter${unlisted === 1 ? '' : 's'} not listed)`);
  for (const issue of issues.filter((i) => i.code !== 'invalid_type').slice(0, LISTED)) {
    const name = issue.path.length === 0 ? 'The input' : `The parameter \`${pathText(issue.path)}\``;
    const why = issue.message.replace(/^Invalid input(?:: |$)/, '').slice(0, 500);
    lines.push(why ? `${name} is invalid: ${why}` : `${name} is invalid`);
  }
  return `${toolName} failed due to the following ${lines.length > 1 ? 'issues' : 'issue'}:\n${lines.join('\n')}`;
}
