/**
 * The sandbox's configuration as a session holds it: the mode (`--sandbox auto|required|off`, the
 * library's `sandbox`), the `sandbox` blocks of the settings layers as written, and the working
 * folders. Light on purpose (no schema library): it is built on every run, while the schema, the
 * merge and bubblewrap load only when a command starts (`./sandbox.ts`).
 */

/** `auto`: on wherever it can start (one stderr line where it cannot); `required`: fail closed; `off`. */
export type SandboxMode = 'auto' | 'required' | 'off';
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'required', 'off'];

/**
 * Why a command may run, which decides how it is confined: `read-only` (the check called it
 * read-only, or plan mode): nothing writable, no network; `workspace` (a rule, the user, a
 * callback or the mode allowed it): the working folders and the session's temp folder writable,
 * network only to `sandbox.network.allowedDomains`.
 */
export type CommandProfile = 'read-only' | 'workspace';

/** Every profile: the two of commands, and those of what agentpipe starts for itself and the user. */
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
  /** Accepted, not applied yet (named in the "not used" warning): Bash calls still go through the check. */
  autoAllowBashIfSandboxed?: boolean;
  /** Accepted; agentpipe has no per-call escape from the sandbox. */
  allowUnsandboxedCommands?: boolean;
  /** Accepted, not applied yet (named in the "not used" warning): every command runs in the sandbox. */
  excludedCommands?: string[];
  /** bubblewrap's path (default: `bwrap` on PATH). */
  bwrapPath?: string;
  network?: {
    /**
     * Accepted and merged, not applied yet: the egress proxy that would let sandboxed commands reach
     * these hosts is not built, so sandboxed commands have no network (named in the "not used" warning).
     */
    allowedDomains?: string[];
    /** Accepted (nothing is reachable from the read-only and workspace profiles anyway). */
    deniedDomains?: string[];
    /** Let sandboxed commands create unix sockets (off: seccomp refuses socket(AF_UNIX)). */
    allowAllUnixSockets?: boolean;
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
}

/** True when `value` is a sandbox mode. */
export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value);
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
