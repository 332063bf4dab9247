/**
 * Prices and limits of known models, for `total_cost_usd` and `result.modelUsage`. Ids match
 * by longest prefix, so dated ids (claude-sonnet-4-5-20250929), Bedrock/Vertex spellings
 * (anthropic.claude-…, claude-…@date) and router prefixes (openai/gpt-4o) all resolve.
 */

/** USD per million tokens of one model, with its context window and output cap. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Writing the prompt cache (Anthropic: 1.25x input; OpenAI: no surcharge). */
  cacheWritePerMTok: number;
  /** Reading the prompt cache (Anthropic: 0.1x input; OpenAI: its cached-input price). */
  cacheReadPerMTok: number;
  contextWindow: number;
  maxOutputTokens: number;
}

function claude(input: number, output: number, maxOutputTokens: number, contextWindow = 200_000): ModelPrice {
  return {
    inputPerMTok: input,
    outputPerMTok: output,
    cacheWritePerMTok: input * 1.25,
    cacheReadPerMTok: input * 0.1,
    contextWindow,
    maxOutputTokens,
  };
}

function openai(
  input: number,
  cachedInput: number,
  output: number,
  contextWindow: number,
  maxOutputTokens: number,
): ModelPrice {
  return {
    inputPerMTok: input,
    outputPerMTok: output,
    cacheWritePerMTok: input,
    cacheReadPerMTok: cachedInput,
    contextWindow,
    maxOutputTokens,
  };
}

/** Prefix → price; the longest matching prefix wins. */
const TABLE: ReadonlyArray<readonly [string, ModelPrice]> = [
  // Anthropic
  ['claude-opus-4-1', claude(15, 75, 32_000)],
  ['claude-opus-4', claude(15, 75, 32_000)],
  ['claude-opus', claude(5, 25, 64_000)], // opus 4.5 and later, see priceOf()
  // Claude Code 2.1.332's windows and output caps (its result's modelUsage); the 5.5 models' and Fable 5.2's prices are
  // its model list's ("Opus 5.5 · … · $4/$20 per Mtok"); the others' are their family's.
  ['claude-opus-4-7', claude(5, 25, 64_000, 1_000_000)],
  ['claude-opus-4-8', claude(5, 25, 64_000, 1_000_000)],
  ['claude-opus-5', claude(5, 25, 64_000, 1_000_000)],
  ['claude-opus-5-5', claude(4, 20, 128_000, 1_000_000)],
  ['claude-sonnet-5', claude(3, 15, 64_000, 1_000_000)],
  ['claude-sonnet-5-5', claude(2, 10, 128_000, 1_000_000)],
  ['claude-haiku-5-5', claude(0.1, 0.5, 128_000, 1_000_000)],
  ['claude-fable-5', claude(8, 40, 64_000, 1_000_000)],
  ['claude-fable-5-2', claude(8, 40, 128_000, 1_000_000)],
  ['claude-sonnet-4', claude(3, 15, 64_000)],
  ['claude-sonnet', claude(3, 15, 64_000)],
  ['claude-3-7-sonnet', claude(3, 15, 64_000)],
  ['claude-3-5-sonnet', claude(3, 15, 8_192)],
  ['claude-haiku-4', claude(1, 5, 64_000)],
  ['claude-haiku', claude(1, 5, 64_000)],
  ['claude-3-5-haiku', claude(0.8, 4, 8_192)],
  ['claude-3-haiku', claude(0.25, 1.25, 4_096)],
  ['claude-3-opus', claude(15, 75, 4_096)],
  // OpenAI
  ['gpt-4o', openai(2.5, 1.25, 10, 128_000, 16_384)],
  ['gpt-4o-mini', openai(0.15, 0.075, 0.6, 128_000, 16_384)],
  ['gpt-4-turbo', openai(10, 10, 30, 128_000, 4_096)],
  ['gpt-4.1', openai(2, 0.5, 8, 1_047_576, 32_768)],
  ['gpt-4.1-mini', openai(0.4, 0.1, 1.6, 1_047_576, 32_768)],
  ['gpt-4.1-nano', openai(0.1, 0.025, 0.4, 1_047_576, 32_768)],
  ['gpt-5', openai(1.25, 0.125, 10, 400_000, 128_000)],
  ['gpt-5-mini', openai(0.25, 0.025, 2, 400_000, 128_000)],
  ['gpt-5-nano', openai(0.05, 0.005, 0.4, 400_000, 128_000)],
  ['gpt-5.1', openai(1.25, 0.125, 10, 400_000, 128_000)],
  ['gpt-5.2', openai(1.75, 0.175, 14, 400_000, 128_000)],
  ['o1', openai(15, 7.5, 60, 200_000, 100_000)],
  ['o1-mini', openai(1.1, 0.55, 4.4, 128_000, 65_536)],
  ['o3', openai(2, 0.5, 8, 200_000, 100_000)],
  ['o3-pro', openai(20, 20, 80, 200_000, 100_000)],
  ['o3-mini', openai(1.1, 0.55, 4.4, 200_000, 100_000)],
  ['o4-mini', openai(1.1, 0.275, 4.4, 200_000, 100_000)],
];

/** Lower-cases an id and strips provider spellings: `anthropic/`, `us.anthropic.`, `4.5` → `4-5` for Claude. */
function normalise(model: string): string {
  let id = model.trim().toLowerCase();
  const slash = id.lastIndexOf('/');
  if (slash >= 0) id = id.slice(slash + 1);
  const claudeAt = id.indexOf('claude-');
  if (claudeAt > 0) id = id.slice(claudeAt);
  if (id.startsWith('claude-')) id = id.replace(/(\d)\.(\d)/g, '$1-$2');
  return id;
}

/**
 * True when `id` continues `prefix` at a word boundary (claude-opus-4 matches claude-opus-4-20250514, not
 * claude-opus-45).
 */
function matches(id: string, prefix: string): boolean {
  if (!id.startsWith(prefix)) return false;
  const next = id.charAt(prefix.length);
  return (
    next === '' ||
    next === '-' ||
    next === '@' ||
    next === ':' ||
    (next === '.' && !/\d/.test(id.charAt(prefix.length + 1)))
  );
}

/** Price and limits of a model, or undefined when it is not known. */
export function priceOf(model: string): ModelPrice | undefined {
  const id = normalise(model);
  let best: readonly [string, ModelPrice] | undefined;
  for (const entry of TABLE) {
    if (matches(id, entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  // Opus 4.5 and later are cheaper than 4.0/4.1: claude-opus-4-<minor> with a one- or two-digit minor >= 5.
  const opus = /^claude-opus-4-(\d{1,2})(?:$|[-@:])/.exec(id);
  if (best?.[0] === 'claude-opus-4' && opus && Number(opus[1]) >= 5)
    return TABLE.find(([prefix]) => prefix === 'claude-opus')?.[1];
  return best?.[1];
}

/** Cost in USD of one request's usage (0 for unknown models). */
export function costOf(
  model: string,
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens?: number | null;
    cache_read_input_tokens?: number | null;
  },
): number {
  const price = priceOf(model);
  if (!price) return 0;
  return (
    (usage.input_tokens * price.inputPerMTok +
      usage.output_tokens * price.outputPerMTok +
      (usage.cache_creation_input_tokens ?? 0) * price.cacheWritePerMTok +
      (usage.cache_read_input_tokens ?? 0) * price.cacheReadPerMTok) /
    1_000_000
  );
}

/** Context window in tokens (1,000,000 for unknown Claude models, as Claude Code says; 32768 for anything else). */
export function contextWindowOf(model: string): number {
  return priceOf(model)?.contextWindow ?? (normalise(model).startsWith('claude') ? 1_000_000 : 32_768);
}

/** Output token cap (32000 for unknown Claude models, 8192 for anything else unknown). */
export function maxOutputTokensOf(model: string): number {
  return priceOf(model)?.maxOutputTokens ?? (normalise(model).startsWith('claude') ? 32_000 : 8_192);
}

/** Model ids worth offering in a model picker (all priced by this table), newest first per family. */
export function knownModels(): string[] {
  return [
    'claude-opus-4-8',
    'claude-opus-4-7',
    'claude-opus-4-6',
    'claude-sonnet-4-6',
    'claude-haiku-4-5',
    'claude-opus-4-5',
    'claude-sonnet-4-5',
    'gpt-5.2',
    'gpt-5.1',
    'gpt-5',
    'gpt-5-mini',
    'gpt-4.1',
    'gpt-4.1-mini',
    'gpt-4o',
    'gpt-4o-mini',
    'o3',
    'o4-mini',
  ];
}
