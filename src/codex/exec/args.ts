/**
 * The command line of `agentpipe exec`: `codex exec`'s, as codex-cli 0.169.0 takes it and as the
 * Codex SDK builds it (`exec --experimental-json [--config k=v]… [--model m] [--sandbox s] [--cd d]
 * [--add-dir d]… [--skip-git-repo-check] [--output-schema f] [resume <id>] [--image f]…`, the
 * prompt on stdin). Every flag codex exec has is known here; one it does not have is an error, as
 * in codex (exit 2). Parsed with Node's `util.parseArgs`.
 */
import { AgentpipeError, errorCode, errorMessage } from '../../process/errors.ts';
import { isKeyOf, isOneOf } from '../../process/guards.ts';
import { parseArgs } from 'node:util';
import { parseOverride, type ConfigOverride } from '../config-overrides.ts';
import { SANDBOX_MODES, type CodexSandboxMode } from '../permissions.ts';

/** A wrong command line (exit 2, as clap's usage errors). */
export class ExecUsageError extends AgentpipeError {
  static override readonly errorName: string = 'ExecUsageError';
}

/** What the command line asks for. */
export interface ExecArgs {
  /** JSON lines on stdout (`--json`, `--experimental-json`). */
  json: boolean;
  model?: string;
  sandbox?: CodexSandboxMode;
  bypass: boolean;
  cd?: string;
  addDirs: string[];
  skipGitRepoCheck: boolean;
  outputSchema?: string;
  outputLastMessage?: string;
  images: string[];
  config: ConfigOverride[];
  /** `--enable`/`--disable` features (codex's; none has an effect here). */
  features: string[];
  ephemeral: boolean;
  ignoreUserConfig: boolean;
  /** Flags accepted for compatibility that change nothing in agentpipe (named in one warning). */
  inert: string[];
  /** `resume <id>` / `resume --last`, `fork <id>`. */
  session?: { kind: 'resume' | 'fork'; id?: string; last: boolean };
  /** The prompt argument (`-` or absent: read stdin). */
  prompt?: string;
  help: boolean;
  version: boolean;
}

const OPTIONS = {
  json: { type: 'boolean' },
  'experimental-json': { type: 'boolean' },
  config: { type: 'string', short: 'c', multiple: true },
  enable: { type: 'string', multiple: true },
  disable: { type: 'string', multiple: true },
  'strict-config': { type: 'boolean' },
  image: { type: 'string', short: 'i', multiple: true },
  model: { type: 'string', short: 'm' },
  oss: { type: 'boolean' },
  'local-provider': { type: 'string' },
  profile: { type: 'string', short: 'p' },
  sandbox: { type: 'string', short: 's' },
  'approve-for-me': { type: 'boolean' },
  'dangerously-bypass-approvals-and-sandbox': { type: 'boolean' },
  'dangerously-bypass-hook-trust': { type: 'boolean' },
  cd: { type: 'string', short: 'C' },
  worktree: { type: 'boolean' },
  'add-dir': { type: 'string', multiple: true },
  'thread-source': { type: 'string' },
  'cyber-access-program': { type: 'string' },
  'skip-git-repo-check': { type: 'boolean' },
  trust: { type: 'boolean' },
  ephemeral: { type: 'boolean' },
  'ignore-user-config': { type: 'boolean' },
  'ignore-rules': { type: 'boolean' },
  'output-schema': { type: 'string' },
  color: { type: 'string' },
  'output-last-message': { type: 'string', short: 'o' },
  last: { type: 'boolean' },
  all: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

/** Flags that change nothing in agentpipe: what codex uses them for does not exist here. */
const INERT = [
  'strict-config',
  'dangerously-bypass-hook-trust',
  'thread-source',
  'cyber-access-program',
  'trust',
  'ignore-rules',
  'color',
  'all',
] as const;

/** Flags of codex exec that agentpipe cannot honour: refused with the reason. */
const REFUSED: Partial<Record<keyof typeof OPTIONS, string>> = {
  oss: 'use -c openai_base_url=<server>/v1 for a local OpenAI-compatible server (Ollama, vLLM, llama.cpp)',
  'local-provider': 'use -c openai_base_url=<server>/v1 for a local OpenAI-compatible server',
  profile: 'agentpipe has no codex config profiles; pass the settings with -c',
  worktree: 'agentpipe does not create git worktrees; run it in the worktree with --cd',
  'approve-for-me': 'agentpipe has no automatic approval reviewer; choose --sandbox instead',
};

export const EXEC_USAGE =
  'Usage: agentpipe exec [OPTIONS] [PROMPT]\n       agentpipe exec [OPTIONS] resume [SESSION_ID] [PROMPT]\n' +
  '       agentpipe exec [OPTIONS] fork <SESSION_ID> [PROMPT]';

/** `agentpipe exec --help`. */
export const EXEC_HELP = `Run agentpipe non-interactively, as codex exec (see docs/codex.md)

${EXEC_USAGE}

Options:
  --json, --experimental-json   print events as JSON lines (codex exec --json)
  -m, --model <MODEL>           the model: scripted, claude-*, or a model of an OpenAI-compatible server
  -s, --sandbox <MODE>          read-only | workspace-write | danger-full-access (agentpipe's permission modes)
      --dangerously-bypass-approvals-and-sandbox   run everything without asking (bypassPermissions)
  -C, --cd <DIR>                the working folder
      --add-dir <DIR>           another working folder (repeatable)
      --skip-git-repo-check     allow a folder outside a git repository
      --output-schema <FILE>    the final message is JSON valid against this JSON Schema
  -i, --image <FILE>            an image of the prompt (repeatable)
  -c, --config <key=value>      a codex config key (model, openai_base_url, model_reasoning_effort,
                                approval_policy, sandbox_mode, web_search, instructions, agentpipe.script, ...)
  -o, --output-last-message <FILE>   write the final message to FILE
      --ephemeral               do not save the session
  resume <ID> | resume --last | fork <ID>   continue a saved session, the latest one, or a copy of one

Environment: CODEX_API_KEY or OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY (claude-* models).
`;

/** Parses the arguments after `exec`; throws ExecUsageError for anything codex exec would refuse. */
export function parseExecArgs(argv: string[]): ExecArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new ExecUsageError(usageMessage(error));
  }
  const v = parsed.values;
  for (const [flag, why] of Object.entries(REFUSED)) {
    if (isKeyOf(v, flag) && v[flag] !== undefined)
      throw new ExecUsageError(`--${flag} is not supported by agentpipe exec: ${why}`);
  }
  const sandbox = v.sandbox;
  if (sandbox !== undefined && !isOneOf(SANDBOX_MODES, sandbox))
    throw new ExecUsageError(
      `invalid value '${sandbox}' for '--sandbox <SANDBOX_MODE>'\n  [possible values: ${SANDBOX_MODES.join(', ')}]`,
    );
  const config = (v.config ?? []).map((text) => {
    try {
      return parseOverride(text);
    } catch (error) {
      throw new ExecUsageError(`invalid value '${text}' for '--config <key=value>': ${errorMessage(error)}`);
    }
  });
  return {
    json: v.json === true || v['experimental-json'] === true,
    ...(v.model !== undefined ? { model: v.model } : {}),
    ...(sandbox !== undefined ? { sandbox } : {}),
    bypass: v['dangerously-bypass-approvals-and-sandbox'] === true,
    ...(v.cd !== undefined ? { cd: v.cd } : {}),
    addDirs: v['add-dir'] ?? [],
    skipGitRepoCheck: v['skip-git-repo-check'] === true,
    ...(v['output-schema'] !== undefined ? { outputSchema: v['output-schema'] } : {}),
    ...(v['output-last-message'] !== undefined ? { outputLastMessage: v['output-last-message'] } : {}),
    images: v.image ?? [],
    config,
    features: [...(v.enable ?? []), ...(v.disable ?? [])],
    ephemeral: v.ephemeral === true,
    ignoreUserConfig: v['ignore-user-config'] === true,
    inert: INERT.filter((flag) => v[flag] !== undefined && flag !== 'color'),
    ...positionals(parsed.positionals, v.last === true),
    help: v.help === true,
    version: v.version === true,
  };
}

/** The subcommand, session id and prompt among the positional arguments. */
function positionals(words: string[], last: boolean): Pick<ExecArgs, 'session' | 'prompt'> {
  const [first, ...rest] = words;
  if (first === 'review') throw new ExecUsageError('agentpipe exec has no review subcommand');
  if (first === 'resume' || first === 'fork') {
    const id = last ? undefined : rest.shift();
    if (first === 'fork' && !id) throw new ExecUsageError('fork needs the SESSION_ID of the session to fork');
    if (rest.length > 1) throw new ExecUsageError(`unexpected argument '${rest[1]}' found`);
    return {
      session: { kind: first, ...(id ? { id } : {}), last },
      ...(rest[0] !== undefined ? { prompt: rest[0] } : {}),
    };
  }
  if (last) throw new ExecUsageError("the argument '--last' can only be used with resume");
  if (words.length > 1) throw new ExecUsageError(`unexpected argument '${words[1]}' found`);
  return first !== undefined ? { prompt: first } : {};
}

/** clap's wording for parseArgs' errors. */
function usageMessage(error: unknown): string {
  const message = errorMessage(error);
  const flag = /'([^']+)'/.exec(message)?.[1];
  if (errorCode(error) === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag)
    return `unexpected argument '${flag.split(' ')[0]}' found\n\n  tip: to pass '${flag}' as a value, use '-- ${flag}'`;
  return message;
}
