/**
 * `agentpipe exec`'s command line and environment → agentpipe's session options and prompt (the
 * config keys and the model are chosen as for the app-server: config-options.ts).
 */
import { AgentpipeError, errorCode, errorMessage } from '../../process/errors.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { UserContentBlock } from '../../messages/types.ts';
import type { SessionOptions } from '../../session/options.ts';
import { CodexConfigError, codexSettings, configMap, type CodexSettings } from '../config-options.ts';
import { codexPermissions, sessionPermissions, type CodexPermissions } from '../permissions.ts';
import { ExecUsageError, type ExecArgs } from './args.ts';

/** A run that cannot start (exit 1, as codex's own start-up errors). */
export class ExecSetupError extends AgentpipeError {
  static override readonly errorName: string = 'ExecSetupError';
}

/** What a run needs. */
export interface ExecPlan {
  options: SessionOptions;
  permissions: CodexPermissions;
  /** Config keys that change nothing here (one warning names them). */
  ignoredKeys: string[];
}

/** Maps the command line; `env` is the process's environment (the SDK's `env` option). */
export function execPlan(args: ExecArgs, env: NodeJS.ProcessEnv, cwdNow: string): ExecPlan {
  const cwd = path.resolve(cwdNow, args.cd ?? '.');
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new ExecSetupError(`--cd ${args.cd}: no such folder`);
  if (!args.skipGitRepoCheck && !insideGitRepo(cwd))
    throw new ExecSetupError('Not inside a trusted directory and --skip-git-repo-check was not specified.');
  let settings: CodexSettings;
  try {
    settings = codexSettings(configMap(args.config), env, cwd, args.model);
  } catch (error) {
    if (CodexConfigError.isInstance(error)) throw new ExecUsageError(error.message);
    throw error;
  }
  const permissions = codexPermissions({
    sandbox: args.sandbox ?? settings.sandbox,
    approvalPolicy: settings.approvalPolicy,
    bypass: args.bypass,
    networkAccess: settings.networkAccess,
  });
  const options: SessionOptions = {
    cwd,
    ...settings.options,
    ...sessionPermissions(permissions),
    ...(args.addDirs.length ? { additionalDirectories: args.addDirs.map((d) => path.resolve(cwd, d)) } : {}),
    ...(args.outputSchema ? { outputFormat: { type: 'json_schema', schema: readSchema(args.outputSchema, cwd) } } : {}),
    ...(args.ephemeral ? { persistSession: false } : {}),
    ...sessionOf(args),
    settingSources: args.ignoreUserConfig ? ['project', 'local'] : ['user', 'project', 'local'],
    // A folder's own settings (hooks, MCP servers, allow rules) apply only once the user trusts it, as codex's
    // untrusted projects get no .codex/config.toml.
    trustProject: false,
    includePartialMessages: false,
    // codex exec's contract, not Claude Code's: agentpipe's retries and endings (a 401 fails the turn, as codex).
    outcomePolicy: 'agentpipe',
    env,
  };
  return { options, permissions, ignoredKeys: settings.ignoredKeys };
}

/** resume / fork → the session to continue. */
function sessionOf(args: ExecArgs): Pick<SessionOptions, 'resume' | 'continue' | 'forkSession'> {
  const s = args.session;
  if (!s) return {};
  return {
    ...(s.id ? { resume: s.id } : { continue: true }),
    ...(s.kind === 'fork' ? { forkSession: true } : {}),
  };
}

/** True when `dir` is inside a git working tree (codex's check before it runs anywhere else). */
function insideGitRepo(dir: string): boolean {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, '.git'))) return true;
    if (path.dirname(at) === at) return false;
  }
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ExecSetupError(`${what}: cannot read ${file} (${errorCode(error) ?? 'error'})`);
  }
}

/** `--output-schema FILE`: a JSON Schema object. */
function readSchema(file: string, cwd: string): Record<string, unknown> {
  const text = readText(path.resolve(cwd, file), '--output-schema');
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new ExecSetupError(`--output-schema ${file}: not valid JSON (${errorMessage(error)})`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new ExecSetupError(`--output-schema ${file}: the schema must be a JSON object`);
  return schema as Record<string, unknown>;
}

const IMAGE_TYPES: Record<string, 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** The prompt's content: its text, then each `--image` file. */
export function promptContent(text: string, images: string[], cwd: string): string | UserContentBlock[] {
  if (!images.length) return text;
  const blocks: UserContentBlock[] = [];
  for (const image of images) {
    const file = path.resolve(cwd, image);
    const mediaType = IMAGE_TYPES[path.extname(file).toLowerCase()];
    if (!mediaType) throw new ExecSetupError(`--image ${image}: not a PNG, JPEG, GIF or WebP file`);
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch (error) {
      throw new ExecSetupError(`--image ${image}: cannot read it (${errorCode(error) ?? 'error'})`);
    }
    blocks.push({ type: 'image', source: { type: 'base64', media_type: mediaType, data: data.toString('base64') } });
  }
  return text ? [{ type: 'text', text }, ...blocks] : blocks;
}
