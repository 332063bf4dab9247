/**
 * Flags of durable sessions → session options: resume/continue/fork, persistence, compaction, structured output, key
 * helper, outcome policy.
 */
import { errorMessage } from '../process/errors.ts';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionOptions } from '../session/options.ts';
import type { CliFlags } from './flags.ts';
import { isOutcomePolicyName } from '../agent/outcome-policy.ts';

type SessionFlagOptions = Pick<
  SessionOptions,
  | 'resume'
  | 'continue'
  | 'forkSession'
  | 'resumeSessionAt'
  | 'resumeDropsTurn'
  | 'sessionMirror'
  | 'persistSession'
  | 'maxContextTokens'
  | 'outputFormat'
  | 'apiKeyHelper'
  | 'outcomePolicy'
>;

/** Maps the flags; throws an Error with a clear message for bad values. */
export function sessionFlagOptions(flags: CliFlags, cwd: string): SessionFlagOptions {
  const options: SessionFlagOptions = {};
  if (typeof flags.resume === 'string') options.resume = flags.resume;
  if (flags.continue === true) options.continue = true;
  if (flags.forkSession === true) options.forkSession = true;
  if (typeof flags.resumeSessionAt === 'string') options.resumeSessionAt = flags.resumeSessionAt;
  if (typeof flags.resumeDropsTurn === 'string') options.resumeDropsTurn = flags.resumeDropsTurn;
  if (flags.sessionMirror === true) {
    if (flags.outputFormat !== 'stream-json')
      throw new Error('--session-mirror needs --output-format stream-json (the mirror lines go to the SDK on stdout)');
    options.sessionMirror = true;
  }
  if (flags.sessionPersistence === false) options.persistSession = false;
  if (typeof flags.maxContextTokens === 'number') options.maxContextTokens = flags.maxContextTokens;
  if (typeof flags.apiKeyHelper === 'string') options.apiKeyHelper = flags.apiKeyHelper;
  if (isOutcomePolicyName(flags.outcomePolicy)) options.outcomePolicy = flags.outcomePolicy;
  if (typeof flags.jsonSchema === 'string')
    options.outputFormat = { type: 'json_schema', schema: readSchema(flags.jsonSchema, cwd) };
  if (options.resume && options.continue) throw new Error('--resume and --continue cannot be combined');
  return options;
}

/** `--json-schema`: inline JSON, or a file holding it. */
function readSchema(value: string, cwd: string): Record<string, unknown> {
  let text = value;
  if (!value.trim().startsWith('{')) {
    const file = path.resolve(cwd, value);
    if (!existsSync(file)) throw new Error(`--json-schema ${value}: neither inline JSON nor an existing file`);
    text = readFileSync(file, 'utf8');
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new Error(`--json-schema: not valid JSON (${errorMessage(error)})`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new Error('--json-schema: the schema must be a JSON object');
  return schema as Record<string, unknown>;
}
