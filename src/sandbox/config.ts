/**
 * The sandbox's configuration as a session holds it: the mode (`--sandbox auto|required|off`, the
 * library's `sandbox`), the `sandbox` blocks of the settings layers as written, and the working
 * folders. Light on purpose (no schema library): it is built on every run, while the schema, the
 * merge and bubblewrap load only when a command starts (`./sandbox.ts`).
 */
import { isOneOf } from '../process/guards.ts';

/** `auto`: on wherever it can start (one stderr line where it cannot); `required`: fail closed; `off`. */
export type SandboxMode = 'auto' | 'required' | 'off';
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'required', 'off'];

/**
 * Why a command may run, which decides how it is confined: `read-only` (the check called it
 * read-only, or plan mode): nothing writable, no network; `workspace` (a rule, the user, a
 * callback or the mode allowed it): the working folders and the session's temp folder writable,
 * network only to `sandbox.network.allowedDomains`; `unsandboxed`: not confined at all (a line of
 * `sandbox.excludedCommands` that was approved, or `dangerouslyDisableSandbox` the user approved).
 */
export type CommandProfile = 'read-only' | 'workspace' | 'unsandboxed';

/** What the OS sandbox means for the permission check of a Bash call (`shellSandbox` in ./sandbox.ts). */
export interface ShellSandbox {
  /** Commands run confined here (the sandbox is on and can start). */
  confining: boolean;
  /** `sandbox.autoAllowBashIfSandboxed`. */
  autoAllow: boolean;
  /** `sandbox.excludedCommands`. */
  excluded: string[];
  /** `dangerouslyDisableSandbox` is honoured (`sandbox.allowUnsandboxedCommands` is not false). */
  allowUnsandboxed: boolean;
}

/** Every profile: those of commands, and those of what agentpipe starts for itself and the user. */
export type SandboxProfile = CommandProfile | 'hook' | 'helper' | 'mcp' | 'harness';

/**
 * The `sandbox` settings block in Claude Code's shape (the official SDK's `SandboxSettings`): the
 * keys agentpipe reads are typed; any other key of Claude Code's is accepted and named in a warning.
 */
export interface SandboxSettings {
  /** false turns the sandbox off (not from project or local settings); true with failIfUnavailable requires it. */
  enabled?: boolean;
  /** With enabled: true, fail closed when the sandbox cannot start (as `--sandbox required`). */
  failIfUnavailable?: boolean;
  /**
   * Bash calls that would be asked run without asking, in the workspace sandbox (not calls a
   * safety check asks, not lines that would run outside the sandbox).
   */
  autoAllowBashIfSandboxed?: boolean;
  /**
   * false: Bash's `dangerouslyDisableSandbox` is ignored. Default true: it asks (only an answer to
   * that very call runs a command outside the sandbox).
   */
  allowUnsandboxedCommands?: boolean;
  /** Command patterns (`docker`, `docker:*`, `npm run *`) whose approved lines run outside the sandbox. */
  excludedCommands?: string[];
  /** bubblewrap's path (default: `bwrap` on PATH). */
  bwrapPath?: string;
  network?: {
    /**
     * Hosts sandboxed commands may reach through the egress proxy: `example.com`, `*.example.com`
     * (subdomains), an IP address (only as such), each with an optional `:port` (agentpipe's addition).
     */
    allowedDomains?: string[];
    /** Hosts never reached, whatever allowedDomains says (same syntax). */
    deniedDomains?: string[];
    /** Let sandboxed commands create unix sockets (off: seccomp refuses socket(AF_UNIX)). */
    allowAllUnixSockets?: boolean;
    [key: string]: unknown;
  };
  /**
   * Secrets sandboxed commands may use without holding them (Claude Code's block): each
   * `envVars` entry is unset inside (`deny`) or replaced by a placeholder the egress proxy swaps for
   * the real value in requests to `injectHosts` (`mask`); `files` entries are hidden (`mask` of a
   * file is not supported yet and hides it too). docs/security.md, "Credentials".
   */
  credentials?: {
    envVars?: CredentialEntry[];
    files?: Array<Omit<CredentialEntry, 'name'> & { path: string }>;
    /** Fill values in over plain `http://` too (default false: only over TLS the proxy verifies). */
    allowPlaintextInject?: boolean;
    [key: string]: unknown;
  };
  filesystem?: {
    /** More paths workspace commands may write (`~` and relative paths allowed). */
    allowWrite?: string[];
    /** Paths kept read-only even inside writable folders. */
    denyWrite?: string[];
    /** Paths hidden from every sandboxed command. */
    denyRead?: string[];
    /** Paths kept readable although hidden (a credential store a tool needs). */
    allowRead?: string[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** One `sandbox.credentials.envVars` entry. */
export interface CredentialEntry {
  name: string;
  mode: 'deny' | 'mask';
  /** A regular expression whose first group marks each secret span of the value (the rest stays). */
  extract?: string;
  /** When `extract` finds nothing: `warn` (default: passed on as it is, with a warning), `deny`, `error`. */
  onExtractNoMatch?: 'deny' | 'error' | 'warn';
  /** Where the proxy fills it in (default: every host of `network.allowedDomains`). */
  injectHosts?: string[];
  [key: string]: unknown;
}

/** Where a layer of settings came from; project and local settings (in the repository) may only tighten. */
export type SandboxLayerSource = 'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings' | 'option';

/** One settings layer's `sandbox` block, as written (validated when the sandbox loads). */
export interface SandboxLayer {
  source: SandboxLayerSource;
  /** Where it was read (a file), for error messages. */
  label: string;
  block: unknown;
}

/** What a session (or `Agent.executeCommand`) knows about its sandbox. */
export interface SandboxConfig {
  /** The mode given as an option or flag; undefined: from the settings (`enabled`, `failIfUnavailable`), else auto. */
  mode?: SandboxMode;
  layers: SandboxLayer[];
  /** The working folder and the `--add-dir` folders (absolute). */
  cwd: string;
  directories: string[];
  /** The environment whose HOME, AGENTPIPE_HOME and TMPDIR count (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Where warnings go (the session's stderr). */
  warn: (line: string) => void;
  /**
   * The specifiers of the `Read(...)` deny rules in force now (the session's rules may change):
   * their paths are hidden from the commands the model runs (./deny-read.ts).
   */
  readDenied?: () => readonly string[];
}

/** True when `value` is a sandbox mode. */
export function isSandboxMode(value: unknown): value is SandboxMode {
  return isOneOf(SANDBOX_MODES, value);
}

/** The sandbox blocks of settings layers (`raw.sandbox` of each), in order. */
export function sandboxLayers(
  layers: ReadonlyArray<{ source: SandboxLayerSource; file?: string; raw: Record<string, unknown> }>,
): SandboxLayer[] {
  return layers
    .filter((layer) => layer.raw.sandbox !== undefined)
    .map((layer) => ({ source: layer.source, label: layer.file ?? '--settings', block: layer.raw.sandbox }));
}

/** A sandbox on `cwd` alone with the default mode (for a tool or hook run outside a session). */
export function defaultSandbox(
  cwd: string,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
) {
  return { layers: [], cwd, directories: [], warn } satisfies SandboxConfig;
}

/** What a sandbox holds for the session's life (its egress proxies and network namespaces). */
const held = new WeakMap<SandboxConfig, Set<() => void>>();

/** Registers `close` to run when the session's sandbox is closed; returns a way to drop it earlier. */
export function holdForSession(config: SandboxConfig, close: () => void): () => void {
  let set = held.get(config);
  if (!set) held.set(config, (set = new Set()));
  set.add(close);
  return () => set.delete(close);
}

/** Closes what the sandbox holds (the session ends); nothing to do when it started nothing. */
export function closeSandbox(config: SandboxConfig | undefined): void {
  if (!config) return;
  const set = held.get(config);
  held.delete(config);
  for (const close of set ?? []) close();
}
