/**
 * Drives a harness directly (no session): the real wrapped CLI from test/harness/clis, a turn
 * that collects what it emits, and a throwaway HOME so the CLI reads no user configuration.
 */
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { ROOT } from '../helpers/cli.ts';
import { scratchDir, scratchDirOutsideTemp } from '../helpers/temp.ts';
import { createHarness, harnessEnv, runHarness } from '../../src/harness/index.ts';
import type { Harness, HarnessConfig, HarnessOutcome, PermissionPromptDetails } from '../../src/harness/types.ts';
import { UsageTracker } from '../../src/agent/usage.ts';
import type { AgentMessage, SystemInitMessage } from '../../src/messages/types.ts';
import type { PermissionResult } from '../../src/messages/control.ts';
import { configDefaults } from '../helpers/turn-state.ts';

/** The folder holding the installed CLIs' executables (`npm run harness-clis`). */
export const CLI_BIN = path.join(ROOT, 'test/harness/clis/node_modules/.bin');

/** The path of a wrapped CLI's executable. */
export const cliBin = (name: 'claude' | 'codex' | 'gemini' | 'qwen'): string => path.join(CLI_BIN, name);

/** PATH with the pinned Node first (the JavaScript CLIs run on it) and the wrapped CLIs. */
export function testPath(): string {
  return [path.dirname(process.execPath), CLI_BIN, process.env.PATH ?? ''].join(path.delimiter);
}

/**
 * The environment that keeps Claude Code (and agentpipe) offline and inside `home`: the local API at `url` with a fake
 * key, no telemetry, updates, error reports or retries.
 */
export function claudeOfflineEnv(url: string, home: string, apiKey = 'sk-ant-test'): Record<string, string> {
  return {
    HOME: home,
    AGENTPIPE_HOME: path.join(home, '.agentpipe'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
}

/** A throwaway HOME and working folder for one test. */
export function harnessDirs(prefix: string): { home: string; cwd: string } {
  // codex keeps its sandbox's helper binaries in its home, and refuses to under the temp folder.
  const root = prefix.includes('codex') ? scratchDirOutsideTemp(`harness-${prefix}`) : scratchDir(`harness-${prefix}`);
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { home, cwd };
}

/** One prompt's messages and outcome. */
export interface HarnessRun {
  messages: AgentMessage[];
  outcome: HarnessOutcome;
  usage: UsageTracker;
  warnings: string[];
}

/** A harness with a collecting turn. */
export interface DrivenHarness {
  harness: Harness;
  warnings: string[];
  /** Runs one prompt; `onMessage` may abort through `controller`. */
  prompt(
    text: string,
    o?: {
      onMessage?: (m: AgentMessage, controller: AbortController) => void;
      askPermission?: (
        tool: string,
        input: Record<string, unknown>,
        shown?: PermissionPromptDetails,
      ) => Promise<PermissionResult>;
    },
  ): Promise<HarnessRun>;
}

/**
 * Starts a harness with `config` over defaults; `env` is added to the CLI's environment (as the user's environment
 * would be).
 */
export async function driveHarness(
  config: Partial<HarnessConfig> & Pick<HarnessConfig, 'name' | 'cwd'>,
  env: Record<string, string> = {},
): Promise<DrivenHarness> {
  const warnings: string[] = [];
  const base = { ...process.env, PATH: testPath(), ...env };
  const full: HarnessConfig = {
    command: [config.name === 'acp' ? 'false' : cliBin(config.name)],
    env: harnessEnv(config.name, base, config.apiKey),
    ...configDefaults(warnings),
    ...config,
  };
  const sessionId = crypto.randomUUID();
  const harness = await createHarness(full, sessionId);
  return {
    harness,
    warnings,
    async prompt(text, o = {}) {
      const messages: AgentMessage[] = [];
      const controller = new AbortController();
      const usage = new UsageTracker();
      const outcome = await runHarness(harness, {
        prompt: text,
        signal: controller.signal,
        usage,
        emit: async (m) => {
          messages.push(m);
          o.onMessage?.(m, controller);
        },
        init: (fields) => initMessage(sessionId, full, fields),
        askPermission: (tool, input, _toolUseId, _signal, shown) =>
          o.askPermission?.(tool, input, shown) ??
          Promise.resolve({ behavior: 'deny', message: 'no permission prompt in this test' }),
      });
      return { messages, outcome, usage, warnings };
    },
  };
}

function initMessage(
  sessionId: string,
  config: HarnessConfig,
  fields: Parameters<Parameters<Harness['run']>[0]['init']>[0],
): SystemInitMessage {
  return {
    type: 'system',
    subtype: 'init',
    cwd: fields.cwd ?? config.cwd,
    session_id: sessionId,
    tools: fields.tools ?? [],
    mcp_servers: [],
    model: fields.model ?? config.model ?? 'unknown',
    permissionMode: fields.permissionMode ?? config.permissionMode,
    slash_commands: [],
    apiKeySource: 'none',
    claude_code_version: '0',
    agentpipe_version: '0',
    output_style: 'default',
    agents: [],
    skills: [],
    plugins: [],
    harness: config.name,
    ...(fields.nativeSessionId ? { harness_session_id: fields.nativeSessionId } : {}),
    uuid: crypto.randomUUID(),
  };
}

/** The types of the messages, `system/<subtype>` for system messages. */
/** The texts of the `system/informational` notices in `messages` (unknown events of the wrapped CLI, ...). */
export function noticesOf(messages: AgentMessage[]): string[] {
  return messages.flatMap((m) => (m.type === 'system' && m.subtype === 'informational' ? [m.content] : []));
}

export function typesOf(messages: AgentMessage[]): string[] {
  return messages.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type));
}

/** The tool_use blocks of the assistant messages. */
export function toolUses(messages: AgentMessage[]) {
  return messages.flatMap((m) =>
    m.type === 'assistant' ? m.message.content.filter((b) => b.type === 'tool_use') : [],
  );
}

/** The tool_result blocks of the user messages, each with its message's `tool_use_result`. */
export function toolResults(messages: AgentMessage[]) {
  return messages.flatMap((m) =>
    m.type === 'user' && Array.isArray(m.message.content)
      ? m.message.content.filter((b) => b.type === 'tool_result').map((block) => ({ block, result: m.tool_use_result }))
      : [],
  );
}
