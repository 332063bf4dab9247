/**
 * The `sandbox` settings block in Claude Code's shape (`SandboxSettings` in the official SDK's
 * sdk.d.ts), read from every settings layer and merged into one policy. Layers from the
 * repository (project and local settings) may only tighten: their `enabled: false`, extra
 * writable or readable paths, allowed domains, excluded commands and unix-socket or unsandboxed
 * escapes are ignored (with one warning), so an untrusted clone can never loosen the sandbox.
 * Keys agentpipe does not use are accepted (the SDK may send them) and named once. The blocks
 * are validated by ./settings-schema.ts (zod), loaded only when a layer has one.
 */
import type { CredentialEntry, SandboxConfig, SandboxLayer, SandboxMode, SandboxSettings } from './config.ts';

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
  /** `sandbox.credentials.envVars` by name: a `deny` from any layer wins, else the last layer's entry. */
  credentialVars: Map<string, CredentialEntry>;
  /** `sandbox.credentials.allowPlaintextInject` (not from the repository). */
  allowPlaintextInject: boolean;
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
  'credentials',
]);
/** allowLocalBinding: a sandboxed command binds in its own network namespace, which nothing outside reaches. */
const READ_CREDENTIALS = new Set(['envVars', 'files', 'allowPlaintextInject']);
const READ_NETWORK = new Set(['allowedDomains', 'deniedDomains', 'allowAllUnixSockets', 'allowLocalBinding']);
const READ_FILESYSTEM = new Set(['allowWrite', 'denyWrite', 'denyRead', 'allowRead']);

/**
 * A layer's `credentials` into the policy: each variable's entry (a `deny` stays denied; a repository's `mask` is a
 * `deny`), and each
 * file hidden as `filesystem.denyRead` hides it (`mask` of a file is not supported: hidden, said once).
 */
function mergeCredentials(
  policy: SandboxPolicy,
  block: Block,
  layer: SandboxLayer,
  warn: (line: string) => void,
): void {
  for (const listed of block.credentials?.envVars ?? []) {
    // The repository's own mask (its hosts, its extract pattern run on the user's value) is not trusted: a deny.
    const entry =
      fromRepository(layer) && listed.mode === 'mask' ? { name: listed.name, mode: 'deny' as const } : listed;
    if (entry !== listed)
      warn(
        `agentpipe: warning: ${layer.label}: sandbox.credentials.envVars ${listed.name}: ` +
          `mask from the repository is applied as deny`,
      );
    if (policy.credentialVars.get(entry.name)?.mode !== 'deny') policy.credentialVars.set(entry.name, entry);
  }
  for (const file of block.credentials?.files ?? []) {
    if (file.mode === 'mask')
      warn(
        `agentpipe: warning: sandbox.credentials.files: mask is not supported yet; ` +
          `${file.path} is hidden instead (deny)`,
      );
    policy.denyRead.push(file.path);
  }
}

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
  if (block.credentials?.allowPlaintextInject) out.push('credentials.allowPlaintextInject');
  return out;
}

/** Keys given that agentpipe does not read. */
function unread(block: Block): string[] {
  const out = Object.keys(block).filter((key) => !READ_KEYS.has(key));
  for (const key of Object.keys(block.network ?? {})) if (!READ_NETWORK.has(key)) out.push(`network.${key}`);
  for (const key of Object.keys(block.filesystem ?? {})) if (!READ_FILESYSTEM.has(key)) out.push(`filesystem.${key}`);
  for (const key of Object.keys(block.credentials ?? {}))
    if (!READ_CREDENTIALS.has(key)) out.push(`credentials.${key}`);
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
    credentialVars: new Map(),
    allowPlaintextInject: false,
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
    // Credentials only take away (a masked value is one a command would otherwise hold whole): every layer.
    mergeCredentials(policy, block, layer, config.warn);
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
    if (block.credentials?.allowPlaintextInject !== undefined)
      policy.allowPlaintextInject = block.credentials.allowPlaintextInject;
  }
  if (ignored.length)
    config.warn(`sandbox settings from the repository may only tighten the sandbox; ignored: ${ignored.join('; ')}`);
  if (notRead.size) config.warn(`sandbox settings not used by agentpipe (accepted): ${[...notRead].join(', ')}`);
  policy.mode = config.mode ?? (required ? 'required' : enabled === false ? 'off' : 'auto');
  return policy;
}
