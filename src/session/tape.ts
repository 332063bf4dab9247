/**
 * A session and its tapes (`record`, `replay`, `replayTools`, `replayUntil`), for every entry point: openSession
 * calls `prepareTape` before the session exists, then `model()` (or `harness()` for a wrapped CLI) and `attach()`.
 * The session itself only meets the tape through its stream tap and the agent context's hooks:
 * - the provider records (model/tape/recording-provider.ts) or answers from the tape (replaying-provider.ts);
 * - a wrapped CLI talks to a recording proxy (harness/tape-proxy.ts);
 * - tool calls, hooks and permission answers are recorded, or answered from the tape (`replayTools: 'tape'`);
 * - the stream is recorded, or given the recorded ids and clock values (tape-stream.ts);
 * - the working folder's files are recorded at the start and at the end.
 * States: `prepared` (options read, nothing written) → `attached` (the session runs) → `live` (a fork passed its
 * point) → `closed`.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { PermissionResult } from '../messages/control.ts';
import type { InputUserMessage } from '../messages/control.ts';
import { promptMessage } from '../messages/user.ts';
import type { ResolvedModel } from '../model/resolve.ts';
import type { ModelProvider } from '../model/types.ts';
import { TAPE_VERSION, type Tape, type TapeLine } from '../model/tape/format.ts';
import { readTape } from '../model/tape/reader.ts';
import { RecordingProvider } from '../model/tape/recording-provider.ts';
import { ReplayingProvider } from '../model/tape/replaying-provider.ts';
import { sceneMapper, sceneNow } from '../model/tape/scene.ts';
import { secretsOf, TapeWriter } from '../model/tape/writer.ts';
import { recordDenial, recordingToolCalls, servingToolCalls, type ToolCallRunner } from '../tools/tape-calls.ts';
import { RecordingHooks, ServingHooks } from '../tools/hooks/tape-hooks.ts';
import { snapshotFiles } from '../tools/tape-files.ts';
import type { TapeProxy } from '../harness/tape-proxy.ts';
import { HARNESS_CLIS } from '../harness/index.ts';
import { VERSION } from '../version.ts';
import type { SessionOptions } from './options.ts';
import { agentpipeHome, transcriptPath } from './paths.ts';
import type { Session } from './session.ts';
import type { SessionTap } from './session-parts.ts';
import { StreamTap } from './tape-stream.ts';
import { tapeSessionOf } from './tape-options.ts';

/** A model as the session resolves it (with the auth error to report, if any). */
type Model = ResolvedModel & { authError?: string };

/** The key a replayed wrapped CLI is given: the proxy answers without one. */
const NO_KEY = 'agentpipe-replay-needs-no-key';

const KEY_SOURCES = new Set(['ANTHROPIC_API_KEY', 'apiKeyHelper', 'none', 'user']);

export type TapeStatus = 'prepared' | 'attached' | 'live' | 'closed';

/** Reads the tape to replay (if any) and checks the tape options; throws an Error that says what is wrong. */
export function prepareTape(options: SessionOptions, log: (line: string) => void): SessionTape {
  if (options.replayTools !== undefined && !options.replay) throw new Error('--replay-tools needs --replay');
  if (options.replayUntil !== undefined && !options.replay) throw new Error('--replay-until needs --replay');
  if (options.replayTools !== undefined && options.replayTools !== 'run' && options.replayTools !== 'tape')
    throw new Error(`--replay-tools must be run or tape, got ${String(options.replayTools)}`);
  if (options.harness === 'acp' && (options.record || options.replay))
    throw new Error('tapes need a wrapped CLI whose API agentpipe knows: not --harness acp');
  const cwd = options.cwd ?? process.cwd();
  if (options.record !== undefined) {
    const dir = path.dirname(path.resolve(cwd, options.record));
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new Error(`--record ${options.record}: no folder ${dir}`);
  }
  const places = sceneNow(cwd, options.env ?? process.env).places;
  const tape = options.replay !== undefined ? readTape(path.resolve(cwd, options.replay), { cwd, places }) : undefined;
  return new SessionTape(tape ? replayOptions(options, tape, cwd, log) : options, tape, log);
}

/** The options of a replay: the tape's model and harness, and the tape's session id when it is free here. */
function replayOptions(options: SessionOptions, tape: Tape, cwd: string, log: (line: string) => void): SessionOptions {
  const recorded = tape.header.session;
  const harness = options.harness && options.harness !== 'agentpipe' ? options.harness : undefined;
  if ((recorded.harness ?? undefined) !== harness && options.harness !== undefined)
    throw new Error(
      `--replay ${options.replay}: the tape was recorded ` +
        (recorded.harness ? `with --harness ${recorded.harness}` : "on agentpipe's own loop"),
    );
  if (recorded.harness && options.replayUntil !== undefined)
    throw new Error("--replay-until: forks of a wrapped CLI's session are not supported (replay it whole)");
  if (recorded.harness && options.record !== undefined)
    throw new Error("--record: a wrapped CLI's replayed session cannot be recorded again (its tape is the recording)");
  if (
    options.replayUntil !== undefined &&
    !tape.lines.some((l) => l.type === 'message' && l.message.uuid === options.replayUntil)
  )
    throw new Error(`--replay-until ${options.replayUntil}: no message of the tape has this uuid`);
  const out: SessionOptions = { ...options, harness: recorded.harness as SessionOptions['harness'] };
  if (!harness && recorded.harness) out.harnessCommand ??= recorded.harnessCommand;
  if (options.replayUntil === undefined) out.model = options.model ?? (recorded.model || undefined);
  const keepId = options.replaySessionId !== false && options.replayUntil === undefined;
  if (options.sessionId === undefined && keepId && !options.resume && !options.continue) {
    const taken =
      options.persistSession !== false &&
      existsSync(transcriptPath(cwd, tape.header.session_id, agentpipeHome(options.env ?? process.env)));
    if (taken)
      log(
        `agentpipe: note: session ${tape.header.session_id} of the tape already has a transcript here; ` +
          'the replay runs under a new session id',
      );
    else out.sessionId = tape.header.session_id;
  }
  return out;
}

export class SessionTape {
  readonly options: SessionOptions;
  readonly #tape?: Tape;
  readonly #log: (line: string) => void;
  #status: TapeStatus = 'prepared';
  #writer?: TapeWriter;
  #replayer?: ReplayingProvider;
  #live?: { model: string };
  #proxy?: TapeProxy;
  #tap?: StreamTap;
  #divergence?: string;
  #prompt = 0;
  /** The tape already holds this session (a resume recorded again): it goes on, numbered after what it holds. */
  #appending?: { requests: number };

  constructor(options: SessionOptions, tape: Tape | undefined, log: (line: string) => void) {
    this.options = options;
    this.#tape = tape;
    this.#log = log;
  }

  /** The session's view of the tape (SessionParts.tap): the stream passes unchanged until `attach`. */
  readonly tap: SessionTap = {
    message: (message) => this.#tap?.message(message) ?? message,
    promptUuid: () => this.#promptUuid(),
    close: () => this.close(),
  };

  get status(): TapeStatus {
    return this.#status;
  }

  #lines<T extends TapeLine['type']>(type: T): Array<Extract<TapeLine, { type: T }>> {
    return (this.#tape?.lines ?? []).filter((l): l is Extract<TapeLine, { type: T }> => l.type === type);
  }

  /** The first time the run leaves the tape: remembered (every later prompt ends with it) and said on the log. */
  #diverge = (text: string): string => {
    if (this.#divergence === undefined) {
      this.#divergence = text;
      this.#log(`agentpipe: ${text}`);
    }
    return this.#divergence;
  };

  /** Maps the replay's text into the recorded scene (folder, day, platform). */
  #toRecorded(): ((text: string) => string) | undefined {
    const header = this.#tape!.header;
    const then = { cwd: [header.cwd], places: header.places ?? {}, date: header.date, platform: header.platform };
    return sceneMapper(sceneNow(this.options.cwd ?? process.cwd(), this.options.env ?? process.env), then);
  }

  /** The session's provider: the tape's (replay), the resolved one recording (record), or both. */
  async model(sessionId: string, resolve: (options: SessionOptions) => Promise<Model>): Promise<Model> {
    let resolved: Model;
    const tape = this.#tape;
    if (tape) {
      const recorded = tape.header.session;
      const live = this.options.replayUntil !== undefined ? await resolve(this.#liveOptions(tape)) : undefined;
      if (live) this.#live = { model: live.model };
      this.#replayer = new ReplayingProvider({
        file: tape.file,
        lines: tape.lines,
        provider: recorded.provider,
        apiKeySource: (KEY_SOURCES.has(recorded.apiKeySource)
          ? recorded.apiKeySource
          : 'none') as ModelProvider['apiKeySource'],
        model: recorded.model,
        toRecorded: this.#toRecorded(),
        onMismatch: this.#diverge,
        ...(live ? { live: { provider: live.provider, model: live.model } } : {}),
      });
      resolved = {
        provider: this.#replayer,
        model: this.options.replayUntil !== undefined ? recorded.model : (this.options.model ?? recorded.model),
      };
    } else resolved = await resolve(this.options);
    if (this.options.record !== undefined) {
      const { provider } = resolved;
      this.#open(sessionId, {
        model: resolved.model,
        provider: provider.provider,
        apiKeySource: provider.apiKeySource,
      });
      resolved = { ...resolved, provider: new RecordingProvider(provider, this.#writer!) };
    }
    return resolved;
  }

  /** The options of the live side of a fork: the given model (or the tape's) with the caller's credentials. */
  #liveOptions(tape: Tape): SessionOptions {
    const { record: _, replay: __, replayTools: ___, replayUntil: ____, ...rest } = this.options;
    return { ...rest, model: this.options.model ?? tape.header.session.model };
  }

  #open(sessionId: string, ran: Parameters<typeof tapeSessionOf>[1]): void {
    const cwd = this.options.cwd ?? process.cwd();
    const env = this.options.env ?? process.env;
    const scene = sceneNow(cwd, env);
    const file = path.resolve(cwd, this.options.record!);
    this.#appending = resumedTape(file, sessionId);
    this.#writer = new TapeWriter(
      file,
      {
        type: 'tape',
        version: TAPE_VERSION,
        agentpipe: VERSION,
        created: new Date().toISOString(),
        cwd,
        ...(scene.cwd[1] ? { realCwd: scene.cwd[1] } : {}),
        ...(Object.keys(scene.places).length ? { places: scene.places } : {}),
        date: scene.date,
        platform: scene.platform,
        session_id: sessionId,
        session: tapeSessionOf(this.options, ran),
      },
      secretsOf(env, [this.options.apiKey]),
      (line) => this.#log(`agentpipe: warning: ${line}`),
      this.#appending,
    );
  }

  /**
   * A wrapped CLI's session: the recording proxy between it and its API. Returns the options to start it with (the
   * proxy's base URL; replaying, a key that opens nothing).
   */
  async harness(sessionId: string, name: keyof typeof HARNESS_CLIS): Promise<SessionOptions> {
    const { startTapeProxy, upstreamOf } = await import('../harness/tape-proxy.ts');
    const env = this.options.env ?? process.env;
    if (this.#tape) {
      const basePath = this.#tape.header.session.apiBasePath ?? '';
      this.#proxy = await startTapeProxy({
        mode: 'replay',
        basePath,
        lines: this.#lines('http'),
        file: this.#tape.file,
        toRecorded: this.#toRecorded(),
        onMismatch: this.#diverge,
      });
      const keyless = Object.fromEntries(Object.entries(env).filter(([k]) => !HARNESS_CLIS[name].keys.includes(k)));
      return { ...this.options, baseUrl: this.#proxy.url, apiKey: NO_KEY, env: keyless };
    }
    const upstream = upstreamOf(name, this.options.baseUrl, env);
    const apiBasePath = new URL(upstream).pathname.replace(/\/+$/, '');
    // The model the CLI was told to use ('' for its own default).
    this.#open(sessionId, { model: this.options.model ?? '', provider: name, apiKeySource: 'none', apiBasePath });
    const writer = this.#writer!;
    this.#proxy = await startTapeProxy({
      mode: 'record',
      upstream,
      write: (line) => writer.write(line),
      nextRequest: () => writer.nextRequest(),
    });
    return { ...this.options, baseUrl: this.#proxy.url };
  }

  /** Hooks the tape into the session (its stream, tool calls, hooks, permission answers) and records the files. */
  attach(session: Session): void {
    const ctx = session.ctx;
    const writer = this.#writer;
    const write = writer ? (line: TapeLine) => writer.write(line) : undefined;
    const tape = this.#tape;
    const fromTape = tape !== undefined && this.options.replayTools === 'tape';
    const live = () => this.#status === 'live';
    const serving = { file: tape?.file ?? '', onMismatch: this.#diverge, live };
    let calls: ToolCallRunner | undefined = fromTape ? servingToolCalls(this.#lines('tool'), serving) : undefined;
    if (write) {
      const record = recordingToolCalls(write);
      const inner = calls;
      calls = inner ? (call, run) => record(call, () => inner(call, run)) : record;
    }
    ctx.toolCalls = calls && {
      run: calls,
      ...(write ? { denied: (call, reason) => recordDenial(write, call, reason) } : {}),
    };
    if (fromTape && ctx.hooks) ctx.hooks = new ServingHooks(ctx.hooks, this.#lines('hook'), serving);
    if (write && ctx.hooks) ctx.hooks = new RecordingHooks(ctx.hooks, write);
    this.#permissions(session, write);
    this.#tap = new StreamTap({
      record: write,
      recorded: tape ? this.#lines('message').map((l) => l.message) : undefined,
      until:
        this.options.replayUntil !== undefined
          ? { uuid: this.options.replayUntil, fork: () => this.#fork(session) }
          : undefined,
      divergence: () => this.#divergence,
    });
    this.#status = 'attached';
    if (write && !this.#appending) {
      const cwd = this.options.cwd ?? process.cwd();
      write({ type: 'files', at: 'start', ...snapshotFiles(cwd, [writer!.file]) });
    }
  }

  /** Permission answers: recorded as the client gives them; replaying with no client, answered from the tape. */
  #permissions(session: Session, write: ((line: TapeLine) => void) | undefined): void {
    const ctx = session.ctx;
    const answers = new Map(this.#lines('permission').map((l) => [l.tool_use_id, l.answer]));
    if (this.#tape && !ctx.canUseTool && answers.size > 0)
      ctx.canUseTool = async (toolName, _input, { toolUseId }): Promise<PermissionResult> =>
        answers.get(toolUseId) ?? {
          behavior: 'deny',
          message: this.#diverge(
            `Replay: the tape ${this.#tape!.file} holds no permission answer for ${toolUseId} (${toolName})`,
          ),
        };
    const ask = ctx.canUseTool;
    if (write && ask)
      ctx.canUseTool = async (toolName, input, options) => {
        const answer = await ask(toolName, input, options);
        write({ type: 'permission', tool_use_id: options.toolUseId, name: toolName, answer });
        return answer;
      };
  }

  /** The fork point passed: the provider goes live, and so does the session's model. */
  #fork(session: Session): void {
    this.#status = 'live';
    this.#replayer?.goLive();
    if (this.#live) session.ctx.model = this.#live.model;
    this.#log(`agentpipe: replay: the fork point ${this.options.replayUntil} passed; the session goes on live`);
  }

  /** A prompt without a uuid gets the recorded prompt's (in order) until the replay went live. */
  #promptUuid(): string | undefined {
    if (!this.#tape || this.#status === 'live') return undefined;
    return this.#lines('prompt')[this.#prompt++]?.uuid;
  }

  /**
   * The prompts the CLI runs when replaying: `given` alone; with no `given`, the tape's; with a fork, the tape's up to
   * the fork point, then `given`.
   */
  inputPrompts(given: string | undefined): InputUserMessage[] {
    const prompt = (line: { uuid: string; content: InputUserMessage['message']['content'] }) => ({
      ...promptMessage(line.content),
      uuid: line.uuid,
    });
    const until = this.options.replayUntil;
    if (until === undefined) return given !== undefined ? [promptMessage(given)] : this.#lines('prompt').map(prompt);
    const tapePrompts: InputUserMessage[] = [];
    const lines = this.#tape?.lines ?? [];
    for (const [i, line] of lines.entries()) {
      if (line.type === 'prompt') tapePrompts.push(prompt(line));
      if (line.type !== 'message' || line.message.uuid !== until) continue;
      // A fork at a prompt's system/init still runs that prompt.
      if (line.message.type === 'system' && line.message.subtype === 'init') {
        const next = lines.slice(i).find((l) => l.type === 'prompt');
        if (next?.type === 'prompt') tapePrompts.push(prompt(next));
      }
      break;
    }
    return given !== undefined ? [...tapePrompts, promptMessage(given)] : tapePrompts;
  }

  /** Records the files as they are now and closes the tape; stops the proxy. */
  async close(): Promise<void> {
    if (this.#status === 'closed') return;
    this.#status = 'closed';
    await this.#proxy?.close();
    const writer = this.#writer;
    if (!writer) return;
    if (this.#tap)
      writer.write({ type: 'files', at: 'end', ...snapshotFiles(this.options.cwd ?? process.cwd(), [writer.file]) });
    writer.close();
  }
}

/** A tape of this very session (it was recorded, and now resumed with the same tape): how many requests it holds. */
function resumedTape(file: string, sessionId: string): { requests: number } | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const tape = readTape(file);
    if (tape.header.session_id !== sessionId) return undefined;
    const numbers = tape.lines.flatMap((l) => (l.type === 'model_request' || l.type === 'http' ? [l.n] : []));
    return { requests: numbers.length ? Math.max(...numbers) + 1 : 0 };
  } catch {
    return undefined; // not a tape, or not one that can go on: written anew
  }
}
