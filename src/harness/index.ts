/**
 * Chooses and starts a harness (`--harness`, the `harness` option): finds the wrapped CLI
 * (`--harness-command`, parsed by the shell parser, or the CLI on PATH), builds its environment
 * (agentpipe's secrets out, the CLI's own key in) and loads the translator lazily, so a session
 * on agentpipe's own loop never loads any of this.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentpipeError, errorMessage } from '../process/errors.ts';
import { childEnv, OTLP_HEADER_VARIABLES } from '../process/env.ts';
import { findExecutable } from '../process/executable.ts';
import type { AgentMessage } from '../messages/types.ts';
import type { Harness, HarnessConfig, HarnessName, HarnessOutcome, HarnessTurn } from './types.ts';

export { missingLogin } from './login.ts';

/** What each wrapped CLI is called, which package brings it, and which variables hold its key. */
export const HARNESS_CLIS: Record<
  Exclude<HarnessName, 'agentpipe'>,
  { bin?: string; package?: string; keys: string[] }
> = {
  claude: {
    bin: 'claude',
    package: '@anthropic-ai/claude-code',
    keys: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  },
  codex: { bin: 'codex', package: '@openai/codex', keys: ['CODEX_API_KEY', 'OPENAI_API_KEY'] },
  gemini: { bin: 'gemini', package: '@google/gemini-cli', keys: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] },
  qwen: { bin: 'qwen', package: '@qwen-code/qwen-code', keys: ['OPENAI_API_KEY'] },
  acp: { keys: [] },
};

/** A harness that cannot start (CLI not installed, bad `--harness-command`). */
export class HarnessSetupError extends AgentpipeError {
  static override readonly errorName: string = 'HarnessSetupError';
}

/** The argv that starts the wrapped CLI; throws HarnessSetupError with what to install when it is missing. */
export async function harnessCommand(
  name: Exclude<HarnessName, 'agentpipe'>,
  command: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const cli = HARNESS_CLIS[name];
  if (command !== undefined) {
    const { analyzeShell } = await import('../tools/shell/parse.ts');
    const analysis = await analyzeShell(command);
    const [only] = analysis.commands;
    if (
      analysis.commands.length !== 1 ||
      analysis.complex.length > 0 ||
      analysis.opaqueName ||
      !only ||
      only.globbed ||
      only.assignments
    ) {
      throw new HarnessSetupError(
        `--harness-command must be one plain command with literal words (no pipes, variables or globs): ${command}`,
      );
    }
    const [file, ...args] = only.argv;
    const found = findExecutable(file!, env);
    if (!found)
      throw new HarnessSetupError(
        `--harness-command: ${file} not found${cli.package ? ` (install it: npm install -g ${cli.package})` : ''}`,
      );
    return [found, ...args];
  }
  if (!cli.bin)
    throw new HarnessSetupError(`--harness ${name} needs --harness-command (the agent to start, e.g. "goose acp")`);
  const found = findExecutable(cli.bin, env);
  if (!found)
    throw new HarnessSetupError(
      `--harness ${name}: the ${cli.bin} CLI is not on PATH (install it: npm install -g ${cli.package})`,
    );
  return [found];
}

/**
 * The wrapped CLI's environment: agentpipe's children's environment (its secrets out), plus the
 * variables holding this CLI's own key: running the CLI is the user's explicit choice, and it
 * cannot work without them. `apiKey` (`--api-key`) goes to the first of them.
 */
export function harnessEnv(
  name: Exclude<HarnessName, 'agentpipe'>,
  base: NodeJS.ProcessEnv,
  apiKey?: string,
): Record<string, string> {
  const env = childEnv(base);
  // Its own key, and the telemetry backend's headers: its spans go where agentpipe's go (docs/telemetry.md).
  const keys = HARNESS_CLIS[name].keys;
  for (const key of [...keys, ...OTLP_HEADER_VARIABLES]) if (base[key] !== undefined) env[key] = base[key];
  if (apiKey && keys[0]) env[keys[0]] = apiKey;
  return env;
}

/**
 * Starts the translator of `config.name` (loaded on first use). The wrapped CLI gets a TMPDIR of its own (mode 0700,
 * in the one its environment named), removed when the harness closes: in the sandbox its TMPDIR is writable, and the
 * user's (often the shared /tmp) would make all of /tmp writable to it, and whatever empty mount points its own
 * sandbox makes there (codex's cover each missing `.git` of a writable folder) visible to every other program.
 */
export async function createHarness(config: HarnessConfig, sessionId: string): Promise<Harness> {
  const tmp = mkdtempSync(path.join(config.env.TMPDIR || os.tmpdir(), `agentpipe-${config.name}-`));
  config.env = { ...config.env, TMPDIR: tmp };
  let harness: Harness;
  try {
    harness = await translatorOf(config, sessionId);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
  const close = harness.close.bind(harness);
  harness.close = async () => {
    try {
      await close();
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  };
  return harness;
}

async function translatorOf(config: HarnessConfig, sessionId: string): Promise<Harness> {
  switch (config.name) {
    case 'claude':
    case 'qwen':
      return new (await import('./claude.ts')).ClaudeStreamHarness(config, sessionId);
    case 'codex':
      return new (await import('./codex.ts')).CodexHarness(config, sessionId);
    case 'gemini':
      return new (await import('./gemini.ts')).GeminiHarness(config, sessionId);
    case 'acp':
      return new (await import('./acp.ts')).AcpHarness(config, sessionId);
  }
}

/**
 * Runs one prompt on a harness: `system/init` is emitted even when the wrapped agent died before
 * saying anything, and a translator that throws ends the prompt with an error outcome instead.
 */
export async function runHarness(harness: Harness, turn: HarnessTurn): Promise<HarnessOutcome> {
  let initSent = false;
  const emit = (message: AgentMessage) => {
    if (message.type === 'system' && message.subtype === 'init') initSent = true;
    return turn.emit(message);
  };
  let outcome: HarnessOutcome;
  try {
    outcome = await harness.run({ ...turn, emit });
  } catch (error) {
    const message = `harness ${harness.name} failed: ${errorMessage(error)}`;
    outcome = {
      subtype: 'error_during_execution',
      text: '',
      errors: [message],
      numTurns: 1,
      turns: 0,
      stopReason: null,
      terminalReason: 'model_error',
    };
  }
  if (!initSent) await turn.emit(turn.init({}));
  return outcome;
}
