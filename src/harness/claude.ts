/**
 * Claude Code and Qwen Code behind agentpipe's stream. Both speak Claude Code's stream-json both
 * ways, so one long-lived process serves every prompt of the session: a prompt is a `user` line
 * on its stdin, its messages come back already in the union (the session id is rewritten to
 * agentpipe's, the CLI's own kept in `system/init`), `can_use_tool` requests are answered through
 * the session's permission prompt, and `interrupt` is the CLI's own control request, with a kill
 * after a grace period when it does not end the prompt. A process that dies is started again at
 * the next prompt, resuming its own session.
 */
import type { AgentMessage } from '../messages/types.ts';
import { errorMessage } from '../process/errors.ts';
import { isRecord, str } from '../process/guards.ts';
import { newUuid } from '../messages/ids.ts';
import { howItEnded, startCli, stderrTail, withTraceparent, type CliLine, type CliProcess } from './cli-process.ts';
import {
  ClaudeControlRequestSchema,
  ClaudeInitSchema,
  ClaudeResultSchema,
  errorSubtypeOf,
  type ClaudeControlRequest,
} from './claude-events.ts';
import { FileChanges, QWEN_APPROVAL, QWEN_STREAM_EVENTS, QWEN_TOOLS, renameTools } from './qwen.ts';
import { TurnState } from './turn-state.ts';
import type { Harness, HarnessConfig, HarnessOutcome, HarnessTurn } from './types.ts';

/** How long an interrupted prompt may take to end on its own before the CLI is killed (ms). */
const INTERRUPT_GRACE_MS = 5000;

/** Message types passed through as they are (the CLI's `stream_event` too, when partial messages were asked for). */
const PASSED = new Set(['assistant', 'user', 'stream_event', 'tool_progress', 'auth_status', 'system']);
/** `stream_event` event types of the union. */
const STREAM_EVENTS = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
]);

export class ClaudeStreamHarness implements Harness {
  readonly name: 'claude' | 'qwen';
  #native: string | undefined;
  #process?: CliProcess;
  #pump?: Promise<void>;
  /** Where the lines of the prompt running now go. */
  #sink?: (line: CliLine | { exit: string }) => void;
  #warned = false;
  #initialized = false;
  /** Qwen Code's results carry no diff: it is rebuilt from the files. */
  readonly #files: FileChanges;

  readonly config: HarnessConfig;
  readonly sessionId: string;

  constructor(config: HarnessConfig, sessionId: string) {
    this.config = config;
    this.sessionId = sessionId;
    this.name = config.name === 'qwen' ? 'qwen' : 'claude';
    this.#native = config.resumeNativeId;
    this.#files = new FileChanges(config.cwd);
  }

  get nativeSessionId(): string | undefined {
    return this.#native;
  }

  configure(change: { model?: string; permissionMode?: HarnessConfig['permissionMode'] }): void {
    Object.assign(this.config, change); // a restarted CLI gets them as flags
    const cli = this.#process;
    if (!cli || cli.exited) return;
    const send = (request: Record<string, unknown>) =>
      void cli.write({ type: 'control_request', request_id: `${String(request.subtype)}-${newUuid()}`, request });
    if (change.model !== undefined) send({ subtype: 'set_model', model: change.model });
    if (change.permissionMode !== undefined) {
      send({
        subtype: 'set_permission_mode',
        mode: this.name === 'qwen' ? QWEN_APPROVAL[change.permissionMode] : change.permissionMode,
      });
    }
  }

  async run(turn: HarnessTurn): Promise<HarnessOutcome> {
    // Claude Code sends its own tool_progress; Qwen Code's calls get agentpipe's heartbeats.
    const state = new TurnState(turn, this.config, this.sessionId, { heartbeats: this.name !== 'claude' });
    const cli = await this.#start(turn.traceparent);
    const lines: Array<CliLine | { exit: string }> = [];
    let wake: (() => void) | undefined;
    this.#sink = (line) => {
      lines.push(line);
      wake?.();
    };
    const next = async (): Promise<CliLine | { exit: string }> => {
      while (lines.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return lines.shift()!;
    };
    let interruptedAt: number | undefined;
    const onAbort = () => {
      interruptedAt = Date.now();
      void cli.write({
        type: 'control_request',
        request_id: `interrupt-${newUuid()}`,
        request: { subtype: 'interrupt' },
      });
      setTimeout(() => {
        if (this.#sink) cli.stop(); // the prompt did not end on its own
      }, INTERRUPT_GRACE_MS).unref();
    };
    turn.signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (turn.signal.aborted) return await state.interrupted();
      if (!this.#initialized) {
        // As the SDK does: Qwen Code asks its permission questions over the control channel only after it.
        this.#initialized = true;
        await cli.write({
          type: 'control_request',
          request_id: `initialize-${newUuid()}`,
          request: { subtype: 'initialize', hooks: null },
        });
      }
      const sent = await cli.write({
        type: 'user',
        message: { role: 'user', content: turn.prompt },
        parent_tool_use_id: null,
        session_id: '',
      });
      if (!sent) {
        const exit = await cli.done;
        return state.failure([
          `${this.name} ${howItEnded(exit)} before the prompt could be sent: ${stderrTail(exit.stderr) || 'no output'}`,
        ]);
      }
      for (;;) {
        const line = await next();
        if ('exit' in line) {
          if (interruptedAt !== undefined) return await state.interrupted();
          return state.failure([line.exit]);
        }
        if (!line.ok) {
          state.unknown('line that is not a JSON object', line.error);
          continue;
        }
        const result = await this.#handle(line.value, state, turn, cli);
        if (result) return this.#outcome(result, state, turn, interruptedAt !== undefined);
      }
    } finally {
      turn.signal.removeEventListener('abort', onAbort);
      this.#sink = undefined;
    }
  }

  /**
   * Starts the CLI (again, resuming its session, after it died). `traceparent`: the span of the prompt that starts it
   * (the CLI reads TRACEPARENT once, so its later prompts nest under that one too).
   */
  async #start(traceparent?: string): Promise<CliProcess> {
    if (this.#process && !this.#process.exited) return this.#process;
    this.#initialized = false;
    const cli = await startCli(
      {
        argv: [...this.config.command, ...this.#args()],
        cwd: this.config.cwd,
        env: withTraceparent(this.#env(), traceparent),
        idleMs: this.config.idleMs,
      },
      this.config,
    );
    this.#process = cli;
    this.#pump = (async () => {
      for await (const line of cli.lines()) this.#sink?.(line);
      const result = await cli.done;
      const why =
        `${this.name} ${howItEnded(result)} before the prompt ended` +
        `${result.stderr.trim() ? `: ${stderrTail(result.stderr)}` : ''}`;
      this.#sink?.({ exit: why });
    })();
    return cli;
  }

  /**
   * Every value rides in its flag's `--flag=value` form: a model name, a system prompt or a resumed session id (from a
   * client or a transcript) that starts with `--` is then never read as a flag of its own (issue 27).
   */
  #args(): string[] {
    const c = this.config;
    const args = ['--output-format=stream-json', '--input-format=stream-json'];
    if (this.name === 'claude') args.unshift('-p', '--verbose');
    if (c.includePartialMessages) args.push('--include-partial-messages');
    if (c.model) args.push(`--model=${c.model}`);
    if (c.systemPrompt !== undefined) args.push(`--system-prompt=${c.systemPrompt}`);
    if (c.appendSystemPrompt) args.push(`--append-system-prompt=${c.appendSystemPrompt}`);
    if (this.#native) args.push(`--resume=${this.#native}`);
    if (this.name === 'claude') {
      // An untrusted folder's .claude/ (hooks, rules, agents) does not apply in Claude Code either: its user's only.
      if (c.projectSettings === false) args.push('--setting-sources=user');
      args.push(`--permission-mode=${c.permissionMode}`, '--permission-prompt-tool=stdio');
      if (c.allowedTools.length) args.push(`--allowedTools=${c.allowedTools.join(',')}`);
      if (c.disallowedTools.length) args.push(`--disallowedTools=${c.disallowedTools.join(',')}`);
      if (c.maxTurns !== undefined) args.push(`--max-turns=${c.maxTurns}`);
      return args;
    }
    // Qwen Code: its own names for the same settings (a list: the flag once per item).
    args.push(`--approval-mode=${QWEN_APPROVAL[c.permissionMode]}`);
    for (const rule of c.allowedTools) args.push(`--allowed-tools=${rule}`);
    for (const rule of c.disallowedTools) args.push(`--exclude-tools=${rule}`);
    if (c.maxTurns !== undefined) args.push(`--max-session-turns=${c.maxTurns}`);
    if (c.baseUrl || c.env.OPENAI_BASE_URL) args.push('--auth-type=openai');
    this.#warnOnce();
    return args;
  }

  #env(): Record<string, string> {
    const env = { ...this.config.env };
    if (this.config.baseUrl)
      env[this.name === 'claude' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL'] = this.config.baseUrl;
    if (this.name === 'qwen' && this.config.model && !env.OPENAI_MODEL) env.OPENAI_MODEL = this.config.model;
    return env;
  }

  #warnOnce(): void {
    if (this.#warned || this.config.permissionMode !== 'dontAsk') return;
    this.#warned = true;
    this.config.warn(
      'harness qwen: permission mode dontAsk runs as Qwen Code\'s "default" (it asks; agentpipe then denies ' +
        'what no one can answer)',
    );
  }

  /** Handles one line of the CLI; returns the prompt's result when this was it. */
  async #handle(
    value: Record<string, unknown>,
    state: TurnState,
    turn: HarnessTurn,
    cli: CliProcess,
  ): Promise<Record<string, unknown> | undefined> {
    const type = value.type;
    if (type === 'result') return value;
    if (type === 'control_request') {
      await this.#answer(ClaudeControlRequestSchema.parse(value), turn, cli);
      return undefined;
    }
    if (type === 'control_response' || type === 'keep_alive' || type === 'control_cancel_request') return undefined;
    if (typeof type !== 'string' || !PASSED.has(type)) {
      state.unknown(`message type ${JSON.stringify(type)}`);
      return undefined;
    }
    if (type === 'system' && value.subtype === 'init') {
      const init = ClaudeInitSchema.parse(value);
      if (init.session_id !== undefined) this.#native = init.session_id;
      await state.init({ model: init.model, tools: init.tools, cwd: init.cwd, nativeSessionId: this.#native });
      return undefined;
    }
    if (type === 'stream_event') {
      const event = isRecord(value.event) ? value.event : undefined;
      if (!this.config.includePartialMessages) return undefined;
      if (typeof event?.type === 'string' && this.name === 'qwen' && QWEN_STREAM_EVENTS.has(event.type))
        return undefined;
      if (typeof event?.type !== 'string' || !STREAM_EVENTS.has(event.type)) {
        state.unknown(`stream_event ${JSON.stringify(event?.type)}`);
        return undefined;
      }
    }
    if ((type === 'assistant' || type === 'user') && !isRecord(value.message)) {
      state.unknown(`${type} line without a message`);
      return undefined;
    }
    if (this.name === 'qwen' && type === 'assistant') this.#files.watch(renameTools(value));
    if (this.name === 'qwen' && type === 'user') await this.#files.complete(value);
    await state.emit({ ...value, session_id: this.sessionId, uuid: str(value.uuid) ?? newUuid() } as AgentMessage);
    return undefined;
  }

  /** Answers the CLI's control requests: permission prompts through the session, the rest refused. */
  async #answer(value: ClaudeControlRequest, turn: HarnessTurn, cli: CliProcess): Promise<void> {
    const requestId = value.request_id;
    const request = value.request;
    let response: Record<string, unknown>;
    if (request.subtype === 'can_use_tool' && request.tool_name !== undefined) {
      const input = request.input ?? {};
      const toolUseId = request.tool_use_id ?? newUuid();
      const toolName = this.name === 'qwen' ? (QWEN_TOOLS[request.tool_name] ?? request.tool_name) : request.tool_name;
      const shown = {
        ...(request.permission_suggestions ? { suggestions: request.permission_suggestions } : {}),
        ...(request.display_name !== undefined ? { displayName: request.display_name } : {}),
        ...(request.description !== undefined ? { description: request.description } : {}),
        ...(request.decision_reason !== undefined ? { decisionReason: request.decision_reason } : {}),
        ...(request.decision_reason_type !== undefined ? { decisionReasonType: request.decision_reason_type } : {}),
        ...(request.blocked_path !== undefined ? { blockedPath: request.blocked_path } : {}),
      };
      const verdict = await turn
        .askPermission(toolName, input, toolUseId, turn.signal, Object.keys(shown).length ? shown : undefined)
        .catch((error: unknown): { behavior: 'deny'; message: string } => ({
          behavior: 'deny',
          message: errorMessage(error),
        }));
      response =
        verdict.behavior === 'allow'
          ? { behavior: 'allow', updatedInput: verdict.updatedInput ?? input }
          : { behavior: 'deny', message: verdict.message };
      await cli.write({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } });
      return;
    }
    await cli.write({
      type: 'control_response',
      response: {
        subtype: 'error',
        request_id: requestId,
        error: `agentpipe does not serve ${String(request.subtype)} for a wrapped ${this.name}`,
      },
    });
  }

  /** The outcome from the CLI's own result (its turns, usage and cost). */
  #outcome(line: Record<string, unknown>, state: TurnState, turn: HarnessTurn, interrupted: boolean): HarnessOutcome {
    state.stopHeartbeats();
    const result = ClaudeResultSchema.parse(line);
    if (typeof line.terminal_reason === 'string' && result.terminal_reason === undefined)
      state.unknown(`terminal_reason ${JSON.stringify(line.terminal_reason)}`);
    for (const [model, u] of result.modelUsage) {
      turn.usage.add(
        model,
        {
          input_tokens: u.inputTokens ?? 0,
          output_tokens: u.outputTokens ?? 0,
          cache_read_input_tokens: u.cacheReadInputTokens ?? 0,
          cache_creation_input_tokens: u.cacheCreationInputTokens ?? 0,
        },
        u.costUSD ?? 0,
      );
    }
    if (result.modelUsage.length === 0 && result.usage) {
      const u = result.usage;
      turn.usage.add(
        this.config.model ?? this.name,
        {
          input_tokens: u.input_tokens ?? 0,
          output_tokens: u.output_tokens ?? 0,
          cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
          cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
        },
        result.total_cost_usd ?? 0,
      );
    }
    turn.usage.apiDurationMs += result.duration_api_ms ?? 0;
    const numTurns = result.num_turns ?? state.numTurns;
    const terminalReason = result.terminal_reason ?? (interrupted ? 'aborted_streaming' : 'completed');
    const common = { numTurns, turns: numTurns, stopReason: result.stop_reason ?? null, terminalReason };
    if (result.subtype === 'success' && result.is_error !== true) {
      const timings = {
        ttft_ms: result.ttft_ms,
        ttft_stream_ms: result.ttft_stream_ms,
        time_to_request_ms: result.time_to_request_ms,
      };
      return { ...common, subtype: 'success', text: result.result ?? state.text, errors: [], timings };
    }
    // Claude Code ends a prompt whose request failed (a rejected key, an API error) with `success` and is_error:
    // passed on in that form (its text, api_error_status, terminal_reason); inside agentpipe it counts as an error.
    if (result.subtype === 'success') {
      const text = result.result ?? 'the request failed';
      return {
        ...common,
        subtype: 'error_during_execution',
        text: '',
        errors: [text],
        apiError: { text, status: result.api_error_status ?? null, terminalReason },
      };
    }
    const errors = [...result.errors, ...(result.error ? [result.error.message] : [])];
    return {
      ...common,
      subtype: errorSubtypeOf(result.subtype),
      text: '',
      errors: errors.length ? errors : [`${this.name} ended the prompt with ${result.subtype}`],
    };
  }

  async close(): Promise<void> {
    const cli = this.#process;
    if (!cli || cli.exited) return;
    cli.endInput();
    const timer = setTimeout(() => cli.stop(), 2000);
    await cli.done;
    clearTimeout(timer);
    await this.#pump;
  }
}
