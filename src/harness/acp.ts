/**
 * The ACP harness: agentpipe as an Agent Client Protocol client of any agent that speaks it over
 * stdio (`--harness acp --harness-command "goose acp"`). The agent is started once, in its own
 * process group; each prompt is one `session/prompt`, and its `session/update` notifications are
 * translated into the message stream: the inverse of the ACP projection (sdk/acp-updates.ts), so
 * `agentpipe acp` behind this harness round-trips. Permission requests go to the session's client
 * (`askPermission`); `fs/*` is served inside the cwd only, `terminal/*` with process groups.
 *
 * The pieces, in acp/: link.ts (the agent's process and connection), terminals.ts (`terminal/*`),
 * tools.ts (ACP tool calls as our tools), translator.ts (updates into messages), permissions.ts
 * (`session/request_permission`), client-fs.ts (`fs/*`), settings.ts (modes and models); this file
 * starts the agent, opens its session and runs the prompts.
 */
import { atMost, sleep } from '../process/retry.ts';
import * as acp from '@agentclientprotocol/sdk';
import type { InitializeResponse, SessionNotification } from '@agentclientprotocol/sdk';
import type { PermissionMode } from '../messages/types.ts';
import { VERSION } from '../version.ts';
import { ClientFs } from './acp/client-fs.ts';
import { AgentLink } from './acp/link.ts';
import { AcpPermissions, PERMISSION_CANCELLED } from './acp/permissions.ts';
import { Aborted, AgentError, errorText, isRecord, STOP_GRACE_MS } from './acp/shared.ts';
import { Terminals } from './acp/terminals.ts';
import { outcomeOf, promptBlocks, PromptTranslator } from './acp/translator.ts';
import { applySettings, type AgentSettings, SESSION_TIMEOUT_MS, type SessionSettings } from './acp/settings.ts';
import { confineCli } from './confine.ts';
import { TurnState } from './turn-state.ts';
import type { Harness, HarnessConfig, HarnessOutcome, HarnessTurn } from './types.ts';

/** How long the agent has to answer `initialize` (a hung or wrong command fails within this). */
export const INIT_TIMEOUT_MS = 10_000;
/** After `session/cancel`, how long the prompt may take to end before the agent is stopped. */
export const CANCEL_GRACE_MS = 2_000;

/** An ACP agent behind agentpipe's stream; see the module comment. */
export class AcpHarness implements Harness {
  readonly name = 'acp' as const;
  readonly #config: HarnessConfig;
  readonly #sessionId: string;
  readonly #terminals: Terminals;
  readonly #permissions: AcpPermissions;
  readonly #fs: ClientFs;
  #link?: AgentLink;
  /** Agents dropped but maybe not gone yet: close() waits for them too. */
  readonly #dropped = new Set<AgentLink>();
  #native?: string;
  /** The agent's permission mode and model, as far as it says. */
  readonly #current: AgentSettings = {};
  #images = false;
  #prompt?: PromptTranslator;
  /** The agent's session cost so far (usage_update is cumulative), and what this prompt added. */
  #sessionCost?: number;
  #promptCost = 0;
  readonly #warned = new Set<string>();
  /** The agent's session settings (modes, config options), and whether the client changed the mode or model since. */
  #settings?: SessionSettings;
  #reconfigure = false;

  constructor(config: HarnessConfig, sessionId: string) {
    this.#config = config;
    this.#sessionId = sessionId;
    this.#terminals = new Terminals(config);
    this.#permissions = new AcpPermissions(config, (line) => this.#warnOnce(line));
    this.#fs = new ClientFs(config.cwd, () => this.#native, this.#permissions.denied);
    if (config.maxTurns !== undefined)
      this.#warnOnce('harness acp: --max-turns has no ACP equivalent and is not applied');
    if (config.systemPrompt !== undefined || config.appendSystemPrompt !== undefined) {
      this.#warnOnce(
        'harness acp: ACP has no system prompt setting: --system-prompt/--append-system-prompt are not applied',
      );
    }
    if (config.baseUrl !== undefined)
      this.#warnOnce('harness acp: ACP has no base URL setting: --base-url is not applied');
  }

  get nativeSessionId(): string | undefined {
    return this.#native ?? this.#config.resumeNativeId;
  }

  /** A new model or mode is applied (session/set_mode, the model config option) before the next prompt. */
  configure(change: { model?: string; permissionMode?: PermissionMode }): void {
    Object.assign(this.#config, change);
    this.#reconfigure = true;
  }

  async run(turn: HarnessTurn): Promise<HarnessOutcome> {
    const state = new TurnState(turn, this.#config, this.#sessionId);
    try {
      return await this.#run(state);
    } catch (error) {
      if (Aborted.isInstance(error)) {
        try {
          return await state.interrupted();
        } catch (inner) {
          return state.failure([`harness acp: ${errorText(inner)}`], 'aborted_streaming');
        }
      }
      return state.failure([AgentError.isInstance(error) ? error.message : `harness acp: ${errorText(error)}`]);
    } finally {
      this.#prompt = undefined;
    }
  }

  async close(): Promise<void> {
    const link = this.#link;
    this.#link = undefined;
    this.#terminals.stopAll();
    if (link) {
      // In stages: stdin closed first, so an agent that ends on it saves what it holds (its telemetry, its session),
      // then SIGTERM (and SIGKILL after the grace period) to one that does not.
      link.group.input?.end();
      await atMost(link.group.done, STOP_GRACE_MS);
      link.stop();
    }
    // The agents dropped after a failure too: none outlives the harness.
    const agents = [...(link ? [link] : []), ...this.#dropped];
    await atMost(Promise.all(agents.map((l) => l.group.done)), STOP_GRACE_MS + 1000);
  }

  /** Adds the prompt's share of the agent's cumulative cost (`usage_update`). */
  reportCost(cost: { amount: number; currency: string } | null | undefined): void {
    if (!cost || cost.currency !== 'USD' || !Number.isFinite(cost.amount)) return;
    if (this.#sessionCost !== undefined && cost.amount >= this.#sessionCost)
      this.#promptCost += cost.amount - this.#sessionCost;
    else if (this.#sessionCost === undefined) this.#promptCost += cost.amount;
    this.#sessionCost = cost.amount;
  }

  async #run(state: TurnState): Promise<HarnessOutcome> {
    const turn = state.turn;
    if (turn.signal.aborted) throw new Aborted();
    const link = await this.#start(turn.signal);
    if (this.#reconfigure && this.#settings) {
      this.#reconfigure = false;
      await this.#configure(link, this.#settings, turn.signal);
    }
    const sessionId = this.#native!;
    await state.init({
      nativeSessionId: sessionId,
      cwd: this.#config.cwd,
      ...(this.#current.model ? { model: this.#current.model } : {}),
      ...(this.#current.mode ? { permissionMode: this.#current.mode } : {}),
    });
    const model = this.#current.model ?? this.#config.model ?? 'acp';
    const prompt = new PromptTranslator(state, model, this.#terminals, (cost) => this.reportCost(cost));
    this.#prompt = prompt;
    this.#promptCost = 0;
    const onAbort = () => prompt.interrupt.abort();
    turn.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const response = link.agent.request('session/prompt', {
        sessionId,
        prompt: promptBlocks(turn.prompt, this.#images, this.#config.warn),
        // The trace context, as ACP's extensibility carries it (telemetry on).
        ...(turn.traceparent ? { _meta: { traceparent: turn.traceparent } } : {}),
      });
      let answer: Awaited<typeof response> | undefined;
      let failure: string | undefined;
      try {
        answer = await link.call('session/prompt', response, { signal: prompt.interrupt.signal });
      } catch (error) {
        if (!Aborted.isInstance(error)) failure = AgentError.isInstance(error) ? error.message : errorText(error);
      }
      if (!answer && failure === undefined) return await this.#cancel(link, sessionId, prompt, response);
      await prompt.finish();
      this.#addUsage(turn, model, answer);
      if (failure !== undefined) {
        if (link.exited || link.connection.signal.aborted) this.#drop(link);
        return state.failure([failure]);
      }
      if (prompt.interrupt.signal.aborted) return await state.interrupted();
      return await outcomeOf(state, answer!.stopReason);
    } finally {
      turn.signal.removeEventListener('abort', onAbort);
    }
  }

  /** `session/cancel`, then the prompt's end within the grace period, else the agent is stopped. */
  async #cancel(
    link: AgentLink,
    sessionId: string,
    prompt: PromptTranslator,
    response: Promise<unknown>,
  ): Promise<HarnessOutcome> {
    // A link that is gone cannot cancel; the response below settles either way.
    void link.agent.notify('session/cancel', { sessionId }).catch(() => {});
    const answered = response.then(
      () => 'answered',
      () => 'answered',
    );
    const ended = await Promise.race([
      answered,
      link.gone.then(() => 'gone'),
      sleep(CANCEL_GRACE_MS, { ref: false }).then(() => 'late'),
    ]);
    if (ended === 'gone') this.#drop(link);
    if (ended === 'late') {
      this.#config.warn(
        `harness acp: the agent did not end the prompt within ${CANCEL_GRACE_MS / 1000} s of session/cancel: ` +
          `stopping it`,
      );
      this.#drop(link);
    }
    await prompt.finish();
    return prompt.state.interrupted();
  }

  #addUsage(turn: HarnessTurn, model: string, answer: unknown): void {
    // `usage` of a PromptResponse is still unstable in ACP: read it when the agent sends it.
    const usage = isRecord(answer) && isRecord(answer.usage) ? answer.usage : undefined;
    const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
    if (usage) {
      const counts = {
        input_tokens: num(usage.inputTokens),
        output_tokens: num(usage.outputTokens),
        cache_read_input_tokens: num(usage.cachedReadTokens),
        cache_creation_input_tokens: num(usage.cachedWriteTokens),
      };
      turn.usage.add(model, counts, this.#promptCost);
    } else if (this.#promptCost > 0) {
      turn.usage.add(model, { input_tokens: 0, output_tokens: 0 }, this.#promptCost);
    }
  }

  /** Forgets a dead (or stopped) agent: the next prompt starts it again and loads its session. */
  #drop(link: AgentLink): void {
    link.stop();
    this.#dropped.add(link);
    void link.group.done.then(() => this.#dropped.delete(link));
    this.#terminals.stopAll();
    if (this.#link === link) this.#link = undefined;
  }

  /** The running agent with its session: started, initialized, the session created or loaded. */
  async #start(signal: AbortSignal): Promise<AgentLink> {
    if (this.#link && !this.#link.exited && !this.#link.connection.signal.aborted) return this.#link;
    if (this.#link) this.#drop(this.#link);
    const confined = await confineCli(this.#config, this.#config.command, this.#config.env);
    const link = new AgentLink(
      { ...this.#config, command: confined.argv, env: confined.env },
      {
        update: (params) => this.#onUpdate(params),
        permission: (params, requestSignal) => this.#onPermission(params, requestSignal),
        readFile: (params) => this.#fs.readFile(params),
        writeFile: (params) => this.#fs.writeFile(params),
        terminals: this.#terminals,
      },
    );
    void link.group.done.then(() => confined.release());
    this.#link = link;
    try {
      const init = await link.call(
        'initialize',
        link.agent.request('initialize', {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
          clientInfo: { name: 'agentpipe', title: 'agentpipe', version: VERSION },
        }),
        { timeoutMs: INIT_TIMEOUT_MS, signal },
      );
      link.initialized = true;
      if (init.protocolVersion !== acp.PROTOCOL_VERSION) {
        throw new AgentError(
          `the ACP agent speaks protocol version ${init.protocolVersion}; agentpipe speaks ${acp.PROTOCOL_VERSION}`,
        );
      }
      const caps = init.agentCapabilities ?? {};
      this.#images = caps.promptCapabilities?.image === true;
      const session = await this.#openSession(link, caps, signal);
      this.#settings = session;
      this.#reconfigure = false;
      await this.#configure(link, session, signal);
      return link;
    } catch (error) {
      this.#drop(link);
      throw error;
    }
  }

  /** The agent's session: ours loaded (or resumed) where the agent can, else a new one. */
  async #openSession(
    link: AgentLink,
    caps: NonNullable<InitializeResponse['agentCapabilities']>,
    signal: AbortSignal,
  ): Promise<SessionSettings> {
    const cwd = this.#config.cwd;
    const resume = this.#native ?? this.#config.resumeNativeId;
    let session: SessionSettings | undefined;
    if (resume && (caps.loadSession || caps.sessionCapabilities?.resume)) {
      // session/load replays the history as updates: no prompt is running, so they are dropped.
      const method = caps.loadSession ? 'session/load' : 'session/resume';
      try {
        session = await link.call(method, link.agent.request(method, { sessionId: resume, cwd, mcpServers: [] }), {
          timeoutMs: SESSION_TIMEOUT_MS,
          signal,
        });
        this.#native = resume;
      } catch (error) {
        if (!AgentError.isInstance(error) || link.exited || link.connection.signal.aborted) throw error;
        this.#config.warn(
          `harness acp: could not resume the agent's session ${resume} (${error.message}): starting a new one`,
        );
      }
    } else if (resume) {
      this.#config.warn(
        `harness acp: the agent cannot load sessions (no loadSession capability): session ${resume} is not ` +
          `resumed, a new one starts`,
      );
    }
    if (!session) {
      const created = await link.call('session/new', link.agent.request('session/new', { cwd, mcpServers: [] }), {
        timeoutMs: SESSION_TIMEOUT_MS,
        signal,
      });
      this.#native = created.sessionId;
      session = created;
    }
    return session;
  }

  /** The permission mode and model of the session, where the agent offers them. */
  #configure(link: AgentLink, session: SessionSettings, signal: AbortSignal): Promise<void> {
    const o = { sessionId: this.#native!, signal, warnOnce: (line: string) => this.#warnOnce(line) };
    return applySettings(link, session, this.#config, this.#current, o);
  }

  #onUpdate(params: SessionNotification): void {
    const prompt = this.#prompt;
    // Outside a prompt (the replay of session/load, late updates) there is nothing to add to.
    if (!prompt || params.sessionId !== this.#native) return;
    prompt.update(params.update);
  }

  async #onPermission(
    params: acp.RequestPermissionRequest,
    requestSignal: AbortSignal,
  ): Promise<acp.RequestPermissionResponse> {
    const prompt = this.#prompt;
    if (!prompt || params.sessionId !== this.#native) return PERMISSION_CANCELLED;
    return this.#permissions.answer(prompt, params, requestSignal, this.#current.mode);
  }

  #warnOnce(line: string): void {
    if (this.#warned.has(line)) return;
    this.#warned.add(line);
    this.#config.warn(line);
  }
}
