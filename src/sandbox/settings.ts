/**
 * The `sandbox` settings block in Claude Code's shape (`SandboxSettings` in the official SDK's
 * sdk.d.ts), read from every settings layer and merged into one policy. Layers from the
 * repository (project and local settings) may only tighten: their `enabled: false`, extra
 * writable or readable paths, allowed domains, excluded commands and unix-socket or unsandboxed
 * escapes are ignored (with one warning), so an untrusted clone can never loosen the sandbox.
 * Keys agentpipe does not use are accepted (the SDK may send them) and named once. The blocks
 * are validated by ./settings-schema.ts (zod), loaded only when a layer has one.
 */
import type { SandboxConfig, SandboxLayer, SandboxMode, SandboxSettings } from './config.ts';

type Block = SandboxSettings;

/** The merged policy the sandbox enforces. */
export interface SandboxPolicy {
  mode: SandboxMode;
  allowWrite: string[];
  denyWrite: string[];
  denyRead: string[];
  allowRead: string[];
  allowedDomains: string[];
  deniedDomains: string[];
  allowAllUnixSockets: boolean;
  excludedCommands: string[];
  autoAllowBashIfSandboxed: boolean;
  /** Bash's dangerouslyDisableSandbox is honoured (it still asks); false from any layer wins. */
  allowUnsandboxedCommands: boolean;
  bwrapPath?: string;
}

/** Keys of the block agentpipe reads; others are accepted and named in one warning. */
const READ_KEYS = new Set([
  'enabled',
  'failIfUnavailable',
  'allowUnsandboxedCommands',
  'autoAllowBashIfSandboxed',
  'excludedCommands',
  'bwrapPath',
  'network',
  'filesystem',
]);
/** allowLocalBinding: a sandboxed command binds in its own network namespace, which nothing outside reaches. */
const READ_NETWORK = new Set(['allowedDomains', 'deniedDomains', 'allowAllUnixSockets', 'allowLocalBinding']);
const READ_FILESYSTEM = new Set(['allowWrite', 'denyWrite', 'denyRead', 'allowRead']);

/** True for layers an untrusted repository can write. */
function fromRepository(layer: SandboxLayer): boolean {
  return layer.source === 'projectSettings' || layer.source === 'localSettings';
}

/** What a repository layer tried to loosen (ignored). */
function loosening(block: Block): string[] {
  const out: string[] = [];
  if (block.enabled === false) out.push('enabled: false');
  if (block.failIfUnavailable === false) out.push('failIfUnavailable: false');
  if (block.autoAllowBashIfSandboxed) out.push('autoAllowBashIfSandboxed');
  if (block.allowUnsandboxedCommands) out.push('allowUnsandboxedCommands');
  if (block.excludedCommands?.length) out.push('excludedCommands');
  if (block.bwrapPath !== undefined) out.push('bwrapPath');
  if (block.network?.allowedDomains?.length) out.push('network.allowedDomains');
  if (block.network?.allowAllUnixSockets) out.push('network.allowAllUnixSockets');
  if (block.filesystem?.allowWrite?.length) out.push('filesystem.allowWrite');
  if (block.filesystem?.allowRead?.length) out.push('filesystem.allowRead');
  return out;
}

/** Keys given that agentpipe does not read. */
function unread(block: Block): string[] {
  const out = Object.keys(block).filter((key) => !READ_KEYS.has(key));
  for (const key of Object.keys(block.network ?? {})) if (!READ_NETWORK.has(key)) out.push(`network.${key}`);
  for (const key of Object.keys(block.filesystem ?? {})) if (!READ_FILESYSTEM.has(key)) out.push(`filesystem.${key}`);
  return out;
}

/** The policy of a session: its layers merged, the mode option or flag first. */
export function resolvePolicy(
  config: Pick<SandboxConfig, 'mode' | 'layers' | 'warn'>,
  parseBlock: (layer: SandboxLayer) => Block,
): SandboxPolicy {
  const policy: SandboxPolicy = {
    mode: 'auto',
    allowWrite: [],
    denyWrite: [],
    denyRead: [],
    allowRead: [],
    allowedDomains: [],
    deniedDomains: [],
    allowAllUnixSockets: false,
    excludedCommands: [],
    autoAllowBashIfSandboxed: false,
    allowUnsandboxedCommands: true,
  };
  let enabled: boolean | undefined;
  let required = false;
  const ignored: string[] = [];
  const notRead = new Set<string>();
  for (const layer of config.layers) {
    const block = parseBlock(layer);
    for (const key of unread(block)) notRead.add(key);
    // Tightening counts from every layer.
    if (block.enabled === true && block.failIfUnavailable === true) required = true;
    policy.denyWrite.push(...(block.filesystem?.denyWrite ?? []));
    policy.denyRead.push(...(block.filesystem?.denyRead ?? []));
    policy.deniedDomains.push(...(block.network?.deniedDomains ?? []));
    if (block.allowUnsandboxedCommands === false) policy.allowUnsandboxedCommands = false;
    if (fromRepository(layer)) {
      const loose = loosening(block);
      if (loose.length) ignored.push(`${layer.label} (${loose.join(', ')})`);
      if (block.enabled === true) enabled = true;
      continue;
    }
    if (block.enabled !== undefined) enabled = block.enabled;
    if (block.failIfUnavailable === false && block.enabled !== true) required = false;
    if (block.autoAllowBashIfSandboxed !== undefined) policy.autoAllowBashIfSandboxed = block.autoAllowBashIfSandboxed;
    if (block.network?.allowAllUnixSockets !== undefined)
      policy.allowAllUnixSockets = block.network.allowAllUnixSockets;
    if (block.bwrapPath !== undefined) policy.bwrapPath = block.bwrapPath;
    policy.allowWrite.push(...(block.filesystem?.allowWrite ?? []));
    policy.allowRead.push(...(block.filesystem?.allowRead ?? []));
    policy.allowedDomains.push(...(block.network?.allowedDomains ?? []));
    policy.excludedCommands.push(...(block.excludedCommands ?? []));
  }
  if (ignored.length)
    config.warn(`sandbox settings from the repository may only tighten the sandbox; ignored: ${ignored.join('; ')}`);
  if (notRead.size) config.warn(`sandbox settings not used by agentpipe (accepted): ${[...notRead].join(', ')}`);
  policy.mode = config.mode ?? (required ? 'required' : enabled === false ? 'off' : 'auto');
  return policy;
}
