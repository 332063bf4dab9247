/**
 * Claude Code 2.1.332's model table, as its SDK face answers it (measured with the official SDK 0.3.332 against the
 * real CLI: `supportedModels()`, `setModel()`; test/compat's sdk/supported-models-* scenarios compare this table to
 * the real CLI's answers). It is data, kept in this one place: the aliases a client may name (`--model`, `setModel`)
 * and the model each resolves to, the rows of `supportedModels()` (and `initialize`'s `models`), and the row Claude
 * Code adds for a session model that no alias covers. Only for the Anthropic API: a session on another provider lists
 * its own models (`modelRows`).
 */

/** Effort levels, as `ModelInfo.supportedEffortLevels` names them. */
export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** One row of `supportedModels()`, in Claude Code's key order (the SDK's `ModelInfo` and its internal keys). */
export interface ModelRow {
  value: string;
  resolvedModel: string;
  displayName: string;
  description: string;
  supportsEffort?: boolean;
  supportedEffortLevels?: EffortLevel[];
  supportsAdaptiveThinking?: boolean;
  supportsFastMode?: boolean;
  supportsAutoMode?: boolean;
  supportsThinkingOff?: boolean;
}

type Capabilities = Omit<ModelRow, 'value' | 'resolvedModel' | 'displayName' | 'description'>;

const ALL_EFFORTS: EffortLevel[] = ['low', 'medium', 'high', 'xhigh', 'max'];
/** The 5.x models behind the aliases: every effort, adaptive thinking, no thinking-off. */
const CURRENT: Capabilities = {
  supportsEffort: true,
  supportedEffortLevels: ALL_EFFORTS,
  supportsAdaptiveThinking: true,
  supportsAutoMode: true,
  supportsThinkingOff: false,
};
const FAST: Capabilities = {
  supportsEffort: true,
  supportedEffortLevels: ALL_EFFORTS,
  supportsAdaptiveThinking: true,
  supportsFastMode: true,
  supportsAutoMode: true,
  supportsThinkingOff: false,
};
/** What Claude Code says of a model it does not know (`gpt-4o`: "Custom model"). */
const CUSTOM: Capabilities = { ...CURRENT, supportsThinkingOff: true };
/** An older model that has only thinking on or off (Sonnet 4.5, Haiku 4.5, Claude 3.5 Haiku). */
const THINKING_ONLY: Capabilities = { supportsThinkingOff: true };
const efforts = (levels: EffortLevel[], more: Capabilities = {}): Capabilities => ({
  supportsEffort: true,
  supportedEffortLevels: levels,
  ...more,
  supportsThinkingOff: true,
});

/** The model each alias resolves to (outside plan mode: `opusplan` is Sonnet then). */
const ALIASES: Record<string, string> = {
  default: 'claude-opus-5-5',
  best: 'claude-opus-5-5',
  opus: 'claude-opus-5-5',
  'opus[1m]': 'claude-opus-5-5',
  opusplan: 'claude-sonnet-5-5',
  sonnet: 'claude-sonnet-5-5',
  'sonnet[1m]': 'claude-sonnet-5-5',
  haiku: 'claude-haiku-5-5',
  fable: 'claude-fable-5-2',
  'fable[1m]': 'claude-fable-5-2',
};

/** Retired models Claude Code runs as the family's current one ("Claude Opus 4.1 now runs as the latest Opus"). */
const REMAPPED: Record<string, string> = { 'claude-opus-4-0': 'opus', 'claude-opus-4-1': 'opus' };

/** The rows every Anthropic session lists, in order. */
const ALIAS_ROWS: ModelRow[] = [
  {
    value: 'default',
    resolvedModel: ALIASES.default!,
    displayName: 'Default (recommended)',
    description: 'Use the default model (currently Opus 5.5) · $4/$20 per Mtok',
    ...FAST,
  },
  {
    value: 'opus',
    resolvedModel: ALIASES.opus!,
    displayName: 'Opus',
    description: 'Opus 5.5 · Best for everyday, complex tasks · $4/$20 per Mtok',
    ...FAST,
  },
  {
    value: 'fable',
    resolvedModel: ALIASES.fable!,
    displayName: 'Fable',
    description: 'Fable 5.2 · Most capable for your hardest and longest-running tasks · $8/$40 per Mtok',
    ...FAST,
  },
  {
    value: 'sonnet',
    resolvedModel: ALIASES.sonnet!,
    displayName: 'Sonnet',
    description: 'Sonnet 5.5 · Efficient for routine tasks · $2/$10 per Mtok',
    ...CURRENT,
  },
  {
    value: 'haiku',
    resolvedModel: ALIASES.haiku!,
    displayName: 'Haiku',
    description: 'Haiku 5.5 · Fastest for quick answers · $0.10/$0.50 per Mtok ($0.50/$2.50 for prompts over 100k)',
    ...CURRENT,
  },
];

/** Which alias offers a newer version of each family ("Newer version available · select Opus for Opus 5.5"). */
const NEWER: Record<string, string> = {
  opus: 'select Opus for Opus 5.5',
  sonnet: 'select Sonnet for Sonnet 5.5',
  haiku: 'select Haiku for Haiku 5.5',
};

/** Older models a session may run, with the row Claude Code adds for them (display name, capabilities). */
const OLDER: Record<string, { name: string; family: keyof typeof NEWER; caps: Capabilities }> = {
  'claude-opus-5': { name: 'Opus 5', family: 'opus', caps: { ...FAST, supportsThinkingOff: true } },
  'claude-opus-4-8': { name: 'Opus 4.8', family: 'opus', caps: { ...FAST, supportsThinkingOff: true } },
  'claude-opus-4-7': { name: 'Opus 4.7', family: 'opus', caps: CUSTOM },
  'claude-opus-4-6': {
    name: 'Opus 4.6',
    family: 'opus',
    caps: efforts(['low', 'medium', 'high', 'max'], { supportsAdaptiveThinking: true, supportsAutoMode: true }),
  },
  'claude-opus-4-5': { name: 'Opus 4.5', family: 'opus', caps: efforts(['low', 'medium', 'high']) },
  'claude-sonnet-5': { name: 'Sonnet 5', family: 'sonnet', caps: CUSTOM },
  'claude-sonnet-4-6': {
    name: 'Sonnet 4.6',
    family: 'sonnet',
    caps: efforts(['low', 'medium', 'high', 'max'], { supportsAdaptiveThinking: true, supportsAutoMode: true }),
  },
  'claude-sonnet-4-5': { name: 'Sonnet 4.5', family: 'sonnet', caps: THINKING_ONLY },
  'claude-sonnet-4-0': { name: 'Sonnet 4', family: 'sonnet', caps: THINKING_ONLY },
  'claude-haiku-4-5': { name: 'Haiku 4.5', family: 'haiku', caps: THINKING_ONLY },
  'claude-3-5-haiku-20241022': { name: 'Claude 3.5 Haiku', family: 'haiku', caps: THINKING_ONLY },
};

/** Earlier Fable versions: listed after the `fable` row, with its slogan (no "newer version" note). */
const OLDER_FABLE: Record<string, string> = { 'claude-fable-5-1': 'Fable 5.1', 'claude-fable-5': 'Fable 5' };

/**
 * The model id a request goes to for `name`: an alias's model (`opus` → claude-opus-5-5, `sonnet[1m]` →
 * claude-sonnet-5-5), a retired model's family (claude-opus-4-1 → claude-opus-5-5), else `name` as it is.
 */
export function resolveClaudeModel(name: string): string {
  const key = name.trim().toLowerCase();
  return ALIASES[key] ?? ALIASES[REMAPPED[key] ?? ''] ?? name;
}

/**
 * The id Claude Code reports as a model's `canonicalModel`: without a date or `-latest`, and a listed model's own id
 * for its `.0` (claude-fable-5-0 → claude-fable-5); other ids as they are.
 */
export function canonicalModel(model: string): string {
  if (!model.startsWith('claude-')) return model;
  const id = model.replace(/-(?:\d{8}|latest)$/, '');
  const short = id.replace(/-0$/, '');
  return short !== id && (Object.hasOwn(OLDER, short) || Object.hasOwn(OLDER_FABLE, short)) ? short : id;
}

/** True when `name` is one of Claude Code's aliases (`opus`, `sonnet[1m]`, `default` ...). */
export const isClaudeAlias = (name: string): boolean => Object.hasOwn(ALIASES, name.trim().toLowerCase());

/**
 * How Claude Code's `/model` names a switch: the model, and what it resolves to when that differs
 * (`opus (claude-opus-5-5)`); `default` (or none) by the model it resolves to.
 */
export function modelSwitchLabel(name: string | null): string {
  if (name === null || name.trim().toLowerCase() === 'default') return resolveClaudeModel('default');
  const resolved = resolveClaudeModel(name);
  return resolved === name ? name : `${name} (${resolved})`;
}

/** The row Claude Code adds for a session model no alias row covers. */
function ownRow(model: string): { row: ModelRow; afterFable: boolean } {
  const base = model.replace(/\[1m\]$/i, '');
  const suffix = base === model ? '' : ' (1M context)';
  const fable = OLDER_FABLE[base];
  if (fable)
    return {
      row: {
        value: model,
        resolvedModel: model,
        displayName: `${fable}${suffix}`,
        description: `${fable} · Most capable for your hardest and longest-running tasks`,
        ...CURRENT,
      },
      afterFable: true,
    };
  const older = OLDER[base];
  if (older)
    return {
      row: {
        value: model,
        resolvedModel: model,
        displayName: `${older.name}${suffix}`,
        description: `Newer version available · ${NEWER[older.family]}`,
        ...older.caps,
      },
      afterFable: false,
    };
  return {
    row: { value: model, resolvedModel: model, displayName: model, description: 'Custom model', ...CUSTOM },
    afterFable: false,
  };
}

/**
 * `supportedModels()` for a session on the Anthropic API running `current`: the alias rows, and a row of its own
 * for `current` when no alias covers it (an older or unknown model), where Claude Code puts it.
 */
export function claudeModelRows(current: string): ModelRow[] {
  const rows = ALIAS_ROWS.map((row) => ({ ...row }));
  const resolved = resolveClaudeModel(current);
  if (isClaudeAlias(current) || rows.some((row) => row.resolvedModel === resolved)) return rows;
  const { row, afterFable } = ownRow(current);
  rows.splice(afterFable ? rows.findIndex((r) => r.value === 'fable') + 1 : rows.length, 0, row);
  return rows;
}

/**
 * `supportedModels()` for any session: Claude Code's rows on the Anthropic API; on another provider (the offline
 * `scripted` model, an OpenAI-compatible server) the models it can switch to, `current` first, each a custom row
 * without claims of effort or thinking support.
 */
export function modelRows(provider: string, current: string, others: readonly string[] = []): ModelRow[] {
  if (provider === 'anthropic') return claudeModelRows(current);
  return [current, ...others.filter((m) => m !== current)].map((id) => ({
    value: id,
    resolvedModel: id,
    displayName: id,
    description: id === current ? 'Current model' : 'Custom model',
  }));
}
