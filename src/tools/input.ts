/** A tool's input schema, and small readers for tool inputs that fail with messages a model can act on. */
import path from 'node:path';
import { ToolInputError } from './types.ts';

type Input = Record<string, unknown>;

/**
 * A tool's `inputSchema`: an object of these properties (JSON Schema each), `required` listing the
 * ones it must have, and no others.
 */
export function objectSchema(
  properties: Record<string, Record<string, unknown>>,
  required?: string[],
): Record<string, unknown> {
  return { type: 'object', properties, ...(required ? { required } : {}), additionalProperties: false };
}

/** A required non-empty string field. */
export function requireString(input: Input, key: string): string {
  const value = input[key];
  if (typeof value !== 'string' || value === '')
    throw new ToolInputError(`The required parameter \`${key}\` is missing or not a string`);
  return value;
}

/** A required string field that may be empty (a file's new content, a replacement). */
export function requireText(input: Input, key: string): string {
  const value = input[key];
  if (typeof value !== 'string')
    throw new ToolInputError(`The required parameter \`${key}\` is missing or not a string`);
  return value;
}

/** An optional string field. */
export function optionalString(input: Input, key: string): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ToolInputError(`The parameter \`${key}\` must be a string`);
  return value;
}

/** An optional number field within [min, max]. */
export function optionalNumber(input: Input, key: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ToolInputError(`The parameter \`${key}\` must be a number between ${min} and ${max}`);
  }
  return value;
}

/** An optional boolean field. */
export function optionalBoolean(input: Input, key: string): boolean | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ToolInputError(`The parameter \`${key}\` must be true or false`);
  return value;
}

/** Resolves a path argument against the working folder. */
export function resolvePath(cwd: string, file: string): string {
  return path.resolve(cwd, file.startsWith('~/') ? path.join(process.env.HOME ?? '', file.slice(2)) : file);
}
