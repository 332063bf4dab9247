/**
 * Codex's sandbox modes and approval policies in agentpipe's terms: the one place both faces
 * (`agentpipe exec --sandbox …`, `agentpipe app-server`'s `sandbox` / `sandboxPolicy` /
 * `approvalPolicy`) map them.
 *
 * | codex | permission mode | OS sandbox |
 * |---|---|---|
 * | `read-only` | `default`: reads inside the working folders and read-only commands run, the rest asks | `auto` |
 * | `workspace-write` | `acceptEdits`: edits inside the working folders too | `auto` |
 * | `danger-full-access` | `bypassPermissions`; `default` with `untrusted` (asks what is not known safe) | `off` |
 * | `--dangerously-bypass-approvals-and-sandbox` | `bypassPermissions` | `off` |
 *
 * What asks goes to the client when the approval policy lets codex ask (`untrusted`, `on-request`,
 * `on-failure`: app-server only) and is denied with `never` (and always in `exec`, which has nobody
 * to ask, as in codex).
 *
 * `osSandbox` becomes the session's `sandbox` option unless the operator chose one (agentpipe's own
 * `--sandbox` on `app-server`, which a client cannot loosen). `networkAccess` is reported, and
 * grants nothing: sandboxed commands reach only `sandbox.network.allowedDomains`, through the
 * egress proxy (docs/security.md), as the operator configured it.
 */
import type { PermissionMode } from '../messages/types.ts';
import type { SandboxMode, SandboxSettings } from '../sandbox/config.ts';

/** Codex's `--sandbox` / `sandbox` values. */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type CodexSandboxMode = (typeof SANDBOX_MODES)[number];
/** Codex's simple approval policies (`approval_policy`). */
export const APPROVAL_POLICIES = ['untrusted', 'on-request', 'on-failure', 'never'] as const;
export type CodexApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** What a Codex sandbox and approval policy mean for an agentpipe session. */
export interface CodexPermissions {
  permissionMode: PermissionMode;
  /** The OS sandbox to ask for (see the note above). */
  osSandbox: 'auto' | 'required' | 'off';
  /** Commands may reach the network (workspace-write's `network_access`; always with full access). */
  networkAccess: boolean;
  /** Calls that need permission are asked of the client (false: they are denied). */
  ask: boolean;
}

/** Maps a Codex sandbox mode and approval policy (defaults: codex's, read-only and on-request). */
export function codexPermissions(o: {
  sandbox?: CodexSandboxMode;
  approvalPolicy?: CodexApprovalPolicy;
  bypass?: boolean;
  networkAccess?: boolean;
}): CodexPermissions {
  const ask = o.approvalPolicy !== 'never';
  if (o.bypass) return { permissionMode: 'bypassPermissions', osSandbox: 'off', networkAccess: true, ask: false };
  if (o.sandbox === 'danger-full-access') {
    const permissionMode = o.approvalPolicy === 'untrusted' ? 'default' : 'bypassPermissions';
    return { permissionMode, osSandbox: 'off', networkAccess: true, ask };
  }
  const networkAccess = o.networkAccess === true;
  if (o.sandbox === 'workspace-write') return { permissionMode: 'acceptEdits', osSandbox: 'auto', networkAccess, ask };
  return { permissionMode: 'default', osSandbox: 'auto', networkAccess, ask };
}

/** The codex sandbox mode that a permission mode shows as (thread responses, config/read). */
export function sandboxModeOf(mode: PermissionMode): CodexSandboxMode {
  if (mode === 'bypassPermissions') return 'danger-full-access';
  return mode === 'acceptEdits' ? 'workspace-write' : 'read-only';
}

/**
 * The session options of a mapping: its permission mode, and its OS sandbox unless `chosen` (the
 * operator's own `--sandbox`) says otherwise.
 */
export function sessionPermissions(
  p: CodexPermissions,
  chosen?: SandboxMode | SandboxSettings,
): { permissionMode: PermissionMode; sandbox: SandboxMode | SandboxSettings } {
  return { permissionMode: p.permissionMode, sandbox: chosen ?? p.osSandbox };
}
