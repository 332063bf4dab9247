/**
 * The command line, as Claude Code spells it. Every flag the official Agent SDK passes is
 * accepted (`--flag value` and `--flag=value`); the ones without an effect yet warn once.
 */
import { Command, Option, InvalidArgumentError } from 'commander';
import { VERSION } from '../version.ts';
import { HARNESS_NAMES, type HarnessName } from '../harness/types.ts';
import { PERMISSION_MODES } from '../messages/permission-modes.ts';
import type { PermissionMode } from '../messages/types.ts';
import { EFFORT_LEVELS, THINKING_DISPLAYS, type EffortLevel, type ThinkingDisplay } from '../model/types.ts';

/** Parsed flags, camelCased by commander. */
export interface CliFlags {
  print?: boolean;
  outputFormat: 'text' | 'json' | 'stream-json';
  inputFormat: 'text' | 'stream-json';
  verbose?: boolean;
  includePartialMessages?: boolean;
  replayUserMessages?: boolean;
  /** OpenTelemetry traces and metrics (also on when OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER name one). */
  otel?: boolean;
  /** Export prompts, tool inputs and outputs with the telemetry. */
  otelContent?: boolean;
  model?: string;
  provider?: 'scripted' | 'anthropic' | 'openai';
  baseUrl?: string;
  script?: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  maxThinkingTokens?: number;
  effort?: EffortLevel;
  thinkingDisplay?: ThinkingDisplay;
  /** `--add-dir`, repeatable. */
  addDir?: string[];
  /** `--debug [filter]`: true, or the filter. */
  debug?: boolean | string;
  allowedTools?: string[];
  disallowedTools?: string[];
  tools?: string;
  permissionMode?: PermissionMode;
  permissionPromptTool?: string;
  harness?: HarnessName;
  harnessCommand?: string;
  sandbox?: 'auto' | 'required' | 'off';
  dangerouslySkipPermissions?: boolean;
  cwd?: string;
  sessionId?: string;
  mcpConfig?: string[];
  record?: string;
  replay?: string;
  replayTools?: 'run' | 'tape';
  replayUntil?: string;
  connect?: string;
  [flag: string]: unknown;
}

/** Flags the official SDK may pass that have no effect yet: accepted with a warning. */
export const NOT_YET_SUPPORTED = [
  'pluginDir',
  'pluginDirNoMcp',
  'projectConfigRoot',
  'permissionPrompts',
  'taskBudget',
  'managedSettings',
  'managedSettingsInInitialize',
  'channels',
] as const;

/** Parses `--port` (0 picks a free port). */
export const port = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('--port must be a whole number from 0 to 65535');
  return n;
};

const integer =
  (name: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1`);
    return n;
  };
const positive =
  (name: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a number above 0`);
    return n;
  };
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * The model and session options every entry point shares (`agentpipe`, `agentpipe acp`; serve,
 * view --live and sessions read the main program's): the model, its limits, tools and
 * permissions, MCP servers, hooks, subagents, transcripts. `sessionOptionsFromFlags` maps them.
 */
export function addSessionOptions(command: Command): Command {
  // In this order: the order of --help.
  const groups = [
    addRuntimeOptions,
    addModelOptions,
    addToolOptions,
    addModelBehaviourOptions,
    addFolderOptions,
    addDebugOptions,
  ];
  return groups.reduce((added, group) => group(added), command);
}

/** The agent that runs the session, its sandbox and its telemetry. */
function addRuntimeOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--harness <agent>',
        "the agent that runs the session: agentpipe's own loop (default), or a wrapped CLI: " +
          HARNESS_NAMES.filter((name) => name !== 'agentpipe').join(', '),
      ).choices(HARNESS_NAMES),
    )
    .option(
      '--harness-command <command>',
      'the wrapped agent\'s command (default: its CLI on PATH; --harness acp needs it, e.g. "goose acp")',
    )
    .addOption(
      new Option(
        '--sandbox <mode>',
        'OS sandbox of every command agentpipe starts: auto (default: on where bubblewrap can start), required ' +
          '(fail when it cannot), off',
      ).choices(['auto', 'required', 'off']),
    )
    .option('--otel', 'export OpenTelemetry traces and metrics (OTLP, configured by the OTEL_* variables)')
    .option('--otel-content', 'with the telemetry, export prompts, tool inputs and outputs too');
}

/** The model, its provider and system prompt, and the limits of a prompt. */
function addModelOptions(command: Command): Command {
  return command
    .option('--model <model>', 'model: scripted, a Claude model, or a model of the --base-url server')
    .addOption(new Option('--provider <name>', 'force a provider').choices(['scripted', 'anthropic', 'openai']))
    .option('--base-url <url>', 'OpenAI-compatible server (Ollama, vLLM, llama.cpp), e.g. http://localhost:11434/v1')
    .option('--script <file>', 'script of the scripted model ({"turns": [...]})')
    .option('--api-key-helper <command>', 'shell command that prints the API key (run when a key is needed)')
    .option('--system-prompt <text>', 'replace the system prompt')
    .option('--append-system-prompt <text>', 'append to the system prompt')
    .option('--max-turns <n>', 'stop after this many model requests per prompt', integer('--max-turns'))
    .option('--max-budget-usd <usd>', 'stop once this much was spent', positive('--max-budget-usd'))
    .option('--max-thinking-tokens <n>', 'extended thinking budget', integer('--max-thinking-tokens'))
    .option(
      '--max-context-tokens <n>',
      "compact the history when the context nears this many tokens (default: the model's window)",
      integer('--max-context-tokens'),
    );
}

/** Tools and permissions, MCP servers, settings with hooks, subagents, the answer's schema. */
function addToolOptions(command: Command): Command {
  return command
    .option('--allowedTools, --allowed-tools <rules...>', 'permission rules that allow (e.g. "Bash(git log:*)" Read)')
    .option(
      '--disallowedTools, --disallowed-tools <rules...>',
      'permission rules that deny; a bare name hides the tool',
    )
    .option('--tools <names>', 'restrict the built-in tools ("default" for all)')
    .addOption(new Option('--permission-mode <mode>', 'permission mode').choices(PERMISSION_MODES))
    .option('--dangerously-skip-permissions', 'same as --permission-mode bypassPermissions')
    .option('--cwd <dir>', 'working folder of the agent')
    .option('--no-session-persistence', 'do not write a transcript ($AGENTPIPE_HOME/projects/<folder>/<id>.jsonl)')
    .option(
      '--mcp-config <configs...>',
      'MCP servers: JSON files or strings {"mcpServers": {"name": {...}}} (repeatable)',
    )
    .option('--strict-mcp-config', 'only the --mcp-config servers, not the mcpServers of the settings files')
    .option(
      '--settings <file-or-json>',
      'settings file or JSON with hooks: {"hooks": {"PreToolUse": [{"matcher": "Bash", ' +
        '"hooks": [{"type": "command", "command": "..."}]}]}}',
    )
    .option('--agents <json>', 'subagents for the Task tool: {"name": {"description", "prompt", "tools"?, "model"?}}')
    .option(
      '--json-schema <schema>',
      'JSON schema (inline JSON or a file) the final answer must match; see result.structured_output',
    )
    .option(
      '--include-hook-events',
      'emit system/hook_started and system/hook_response for each hook (without it: SessionStart hooks only)',
    );
}

/** How the model answers: the outcome policy, fallback models, effort, thinking, betas. */
function addModelBehaviourOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--outcome-policy <policy>',
        "whose contract retries, cut or empty replies and budget stops follow: claude-code (default: Claude Code's) " +
          "or agentpipe (agentpipe's own, as the Codex and ACP faces)",
      ).choices(['claude-code', 'agentpipe']),
    )
    .option(
      '--fallback-model <models>',
      'model(s) to switch to, for the rest of the prompt, when a request fails with overloaded, model not ' +
        'found or server errors after the retries (comma-separated: tried in order)',
    )
    .addOption(
      new Option(
        '--effort <level>',
        'reasoning effort (Anthropic output_config.effort, OpenAI reasoning_effort)',
      ).choices(EFFORT_LEVELS),
    )
    .addOption(
      new Option(
        '--thinking <mode>',
        'thinking: adaptive, enabled (budget: --max-thinking-tokens) or disabled',
      ).choices(['adaptive', 'enabled', 'disabled']),
    )
    .addOption(
      new Option('--thinking-display <mode>', 'how thinking comes back (Anthropic)').choices(THINKING_DISPLAYS),
    )
    .option('--betas <betas>', 'Anthropic betas, comma-separated (anthropic-beta header)');
}

/** The folders the agent works in, the settings files it loads, the agent it runs as. */
function addFolderOptions(command: Command): Command {
  return command
    .option('--add-dir <dir>', 'extra folder the agent works in, like the cwd (repeatable)', collect)
    .option(
      '--setting-sources <sources>',
      'settings files to load: user ($AGENTPIPE_HOME/settings.json), project (.agentpipe/settings.json), local ' +
        '(.agentpipe/settings.local.json), with the agents/*.md of user and project; default all (project and ' +
        'local only in a trusted folder: agentpipe trust), "" for none; naming project or local trusts them',
    )
    .option(
      '--trust-project',
      "apply this folder's own settings (hooks, rules, MCP servers, agents) for this run without `agentpipe trust`",
    )
    .option('--no-trust-project', "this folder's own settings apply only if it is trusted, even when named")
    .option(
      '--agent <name>',
      "run the main thread as this agent (--agents or the SDK's agents): its prompt, tools and model",
    );
}

/** Debug lines, and recording or replaying the session on a tape. */
function addDebugOptions(command: Command): Command {
  return command
    .option(
      '--debug [filter]',
      'debug lines on stderr (requests, retries, tool calls, control requests); filter e.g. "api,tools" or "!control"',
    )
    .option('--debug-file <file>', 'write the debug lines to this file (implies --debug)')
    .option(
      '--record <file>',
      'record the session on a tape (JSON lines: requests, answers, tools, files; docs/tapes.md)',
    )
    .option(
      '--replay <file>',
      'answer every model request from a tape, offline; a request that differs ends the prompt with an error (exit 1)',
    )
    .addOption(
      new Option(
        '--replay-tools <mode>',
        'with --replay: run tool calls for real (run), or answer them from the tape',
      ).choices(['run', 'tape']),
    )
    .option('--replay-until <uuid>', 'with --replay: replay up to this message, then go on live (a fork)');
}

/** Commander's error as one line ("unknown option '--prot' (Did you mean --port?)"). */
export const oneLine = (text: string): string => text.trim().replace(/\s*\n\s*/g, ' ');

export function buildProgram(): Command {
  const program = new Command('agentpipe')
    .description('An agent runtime that streams every step as typed messages (Claude Code SDK-mode compatible).')
    .version(VERSION, '-v, --version')
    .argument('[prompt]', 'the prompt (read from stdin when absent and stdin is a pipe)')
    .option('-p, --print', 'print mode: run the prompt and exit (the only mode; accepted for compatibility)')
    .addOption(
      new Option('--output-format <format>', 'output format').choices(['text', 'json', 'stream-json']).default('text'),
    )
    .addOption(new Option('--input-format <format>', 'input format').choices(['text', 'stream-json']).default('text'))
    .option('--verbose', 'every message (json: an array; required by stream-json)')
    .option('-q, --quiet', 'text output in a terminal: no live progress on stderr (tool calls, denials, retries, cost)')
    .option('--include-partial-messages', 'emit stream_event messages with the raw deltas')
    .option('--replay-user-messages', 'echo user messages from stdin back (stream-json)')
    .option('--permission-prompt-tool <tool>', '"stdio": ask the SDK client through can_use_tool control requests')
    .option(
      '--sdk-url <url>',
      'speak stream-json over a WebSocket: dial this ws:// URL of the client (reconnects, resends unacked lines)',
    )
    .option(
      '--connect <url>',
      'the interactive session on an agentpipe serve: its ws:// URL as serve printed it (the token: its ?token= or ' +
        "AGENTPIPE_SERVE_TOKEN); the server's model and flags apply",
    );
  addSessionOptions(program)
    // Which session a run is (acp's client chooses with session/new and session/load instead).
    .option('--session-id <uuid>', 'use this session id')
    .option(
      '-r, --resume <id>',
      'resume a session: its id (or a unique start of it), or the path of its .jsonl transcript',
    )
    .option('-c, --continue', 'continue the latest session of this folder')
    .option(
      '--fork-session',
      'with --resume/--continue: go on under a new session id (the old transcript stays as it was)',
    )
    .option('--resume-session-at <uuid>', 'with --resume: keep the history up to and including this message')
    .option(
      '--resume-drops-turn <uuid>',
      'with --resume-session-at: the prompt uuid of the one turn being dropped (refused when more would go)',
    )
    .option(
      '--session-mirror',
      "stream-json: send each transcript line as transcript_mirror (the SDK's sessionStore) and resume from " +
        '$CLAUDE_CONFIG_DIR/projects',
    )
    .option('--await-initialize', 'stream-json: hold user messages until the initialize control request was handled')
    .option(
      '--allow-dangerously-skip-permissions',
      'accepted for the official SDK; not needed: bypassPermissions works without it',
    )
    // Accepted for the official SDK; no effect yet (warned once each).
    .option('--plugin-dir <dir>', 'plugin folder (not supported yet)', collect)
    .option('--project-config-root <dir>', 'project config root (not supported yet)')
    .option('--permission-prompts <mode>', 'permission prompts (not supported yet)')
    .option('--task-budget <n>', 'task budget (not supported yet)')
    .option('--managed-settings <json>', 'managed settings (not supported yet)')
    .option('--managed-settings-in-initialize', 'managed settings come in initialize (not supported yet)')
    .option('--plugin-dir-no-mcp <dir>', 'plugin folder without its MCP servers (not supported yet)', collect)
    .option('--channels <name>', 'channels (agentpipe has none; repeatable)', collect)
    .option(
      '--initialize-fields <fields>',
      'fields the SDK sends in initialize instead of flags (settings, disallowedTools): always read there',
    )
    .addHelpText(
      'after',
      '\nSubcommands:\n  acp    serve the Agent Client Protocol on stdio for editors such as Zed, with the ' +
        'model and session flags above (agentpipe acp --help)\n' +
        "  exec   Codex's `codex exec` command line and --json lines, for the Codex SDK (agentpipe exec --help)\n" +
        "  app-server  Codex's app-server protocol on stdio or a WebSocket (agentpipe app-server --help)\n" +
        '  help [command]  the help of a command (agentpipe help serve)\n\n' +
        'A single word first without -p is read as a command, never sent as a prompt: agentpipe -p hello sends it.',
    )
    .configureOutput({ outputError: (text, write) => write(`agentpipe: ${oneLine(text)} (see agentpipe --help)\n`) });
  return program;
}
