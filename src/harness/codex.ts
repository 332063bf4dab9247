/**
 * The Codex harness: `codex app-server` where the wrapped codex has it (live text deltas, command
 * output, diffs, and codex's approvals asked through agentpipe's session: codex/app-server.ts), else
 * one `codex exec --json` per prompt (codex/exec.ts). A user message sent with `priority: "now"` while a prompt
 * runs joins it through codex's turn/steer (app-server only). A codex whose app-server does not answer
 * `initialize` gets the exec harness, with one warning. AGENTPIPE_CODEX_PROTOCOL=exec or
 * =app-server (in the environment codex gets) chooses outright.
 *
 * codex's own sandbox covers each missing `.git`, `.codex`, `.agents` and `.aws` of every folder it
 * may write with an empty mount, which bubblewrap creates on the host for as long as the command
 * runs: in the shared /tmp, where any other program (Gemini CLI looking for a repository from its
 * folder upward, an editor) sees them come and go. So codex never gets /tmp to write
 * (`exclude_slash_tmp`), and its TMPDIR is a folder private to this harness (every harness gets one:
 * `createHarness`), removed at close: the empty mounts are made there, where no one else looks.
 */
import type { PermissionMode, UserContentBlock } from '../messages/types.ts';
import type { Harness, HarnessConfig, HarnessOutcome, HarnessTurn } from './types.ts';
import { AppServerUnavailable, CodexAppServerHarness } from './codex/app-server.ts';

export { unwrapShell, reverseUnifiedDiff, tomlString, CODEX_PROVIDER_ID } from './codex/shared.ts';
export { codexThreadPermissions } from './codex/app-server.ts';

export class CodexHarness implements Harness {
  readonly name = 'codex' as const;
  readonly config: HarnessConfig;
  readonly sessionId: string;
  #impl: Harness;
  readonly #protocol: string;

  constructor(config: HarnessConfig, sessionId: string) {
    this.config = config;
    this.sessionId = sessionId;
    this.#protocol = config.env.AGENTPIPE_CODEX_PROTOCOL ?? 'auto';
    this.#impl = this.#protocol === 'exec' ? this.#exec() : new CodexAppServerHarness(config, sessionId);
  }

  #exec(): Harness {
    // Loaded only for a codex without an app-server.
    return new LazyExec(this.config, this.sessionId);
  }

  get nativeSessionId(): string | undefined {
    return this.#impl.nativeSessionId;
  }

  configure(change: { model?: string; permissionMode?: PermissionMode }): void {
    this.#impl.configure(change);
  }

  async run(turn: HarnessTurn): Promise<HarnessOutcome> {
    try {
      return await this.#impl.run(turn);
    } catch (error) {
      if (!AppServerUnavailable.isInstance(error) || this.#protocol === 'app-server') throw error;
      this.config.warn(`harness codex: ${error.message}; using codex exec instead`);
      this.config.resumeNativeId = this.#impl.nativeSessionId ?? this.config.resumeNativeId;
      this.#impl = this.#exec();
      return this.#impl.run(turn);
    }
  }

  /** Steering needs codex's app-server; the exec protocol has none (the message then waits its turn). */
  async steer(prompt: string | UserContentBlock[]): Promise<boolean> {
    return (await this.#impl.steer?.(prompt)) ?? false;
  }

  async close(): Promise<void> {
    await this.#impl.close();
  }
}

/** The exec harness, its module loaded on first use. */
class LazyExec implements Harness {
  readonly name = 'codex' as const;
  readonly #config: HarnessConfig;
  readonly #sessionId: string;
  #harness?: Harness;

  constructor(config: HarnessConfig, sessionId: string) {
    this.#config = config;
    this.#sessionId = sessionId;
  }

  get nativeSessionId(): string | undefined {
    return this.#harness?.nativeSessionId ?? this.#config.resumeNativeId;
  }

  configure(change: { model?: string; permissionMode?: PermissionMode }): void {
    Object.assign(this.#config, change);
  }

  async run(turn: HarnessTurn): Promise<HarnessOutcome> {
    this.#harness ??= new (await import('./codex/exec.ts')).CodexExecHarness(this.#config, this.#sessionId);
    return this.#harness.run(turn);
  }

  async close(): Promise<void> {
    await this.#harness?.close();
  }
}
