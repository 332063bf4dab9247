/**
 * A model name that cannot be right, said before any request and before the key check (which would otherwise
 * answer every mistake with "No Anthropic API key"): a near miss of `scripted` (`scriptd`), a misspelt Claude model
 * (`claude-sonet-4-6`: did you mean claude-sonnet-4-6?), and a model of another vendor sent to Anthropic (`gpt-4o`,
 * `qwen3:8b`: give --base-url or --provider openai). Names are checked word by word, not against a list of ids, so a
 * Claude model newer than this table is never refused. Behind a gateway (`ANTHROPIC_BASE_URL`) any name may be right:
 * only the `scripted` near miss is said there.
 */
import { editDistance, nearest } from '../process/nearest.ts';
import type { ModelOptions, ProviderName } from './resolve.ts';

/** The words a Claude model id is made of (`claude-opus-4-8`, `claude-3-5-haiku-latest`). */
const CLAUDE_WORDS = ['claude', 'opus', 'sonnet', 'haiku'];
/** Claude Code's `--model` aliases. */
const ALIASES = new Set(['sonnet', 'opus', 'haiku', 'default', 'opusplan', 'best']);

/** Throws one line naming the mistake and the way out when `options.model` cannot be what the user meant. */
export function checkModelName(options: ModelOptions, provider: ProviderName): void {
  const problem = modelNameProblem(options, provider);
  if (problem) throw new Error(problem);
}

/** The line for a model name that cannot be right with `provider`, or undefined. */
export function modelNameProblem(options: ModelOptions, provider: ProviderName): string | undefined {
  const model = options.model?.trim();
  // `--provider` says the user knows what the server serves.
  if (!model || model === 'scripted' || options.provider !== undefined) return undefined;
  const lower = model.toLowerCase();
  if (nearest(lower, ['scripted']) !== undefined)
    return `unknown model '${model}' (did you mean scripted? the offline model, which needs no key)`;
  const env = options.env ?? process.env;
  if (provider !== 'anthropic' || env.ANTHROPIC_BASE_URL) return undefined;
  const id = claudeId(lower);
  if (ALIASES.has(id)) return undefined;
  const fixed = spellClaude(id);
  if (fixed !== id && isClaude(fixed))
    return `unknown model '${model}' (did you mean ${fixed}?); --model takes a Claude model id (claude-sonnet-4-6)`;
  if (!isClaude(id))
    return (
      `${model} is not a Claude model: give --base-url (an OpenAI-compatible server) or --provider openai ` +
      `(with OPENAI_API_KEY), or a Claude model such as claude-sonnet-4-6`
    );
  return undefined;
}

/** The id without a Bedrock/Vertex/router spelling: `anthropic/…`, `us.anthropic.…`, a `[1m]` suffix. */
function claudeId(lower: string): string {
  return lower
    .slice(lower.lastIndexOf('/') + 1)
    .replace(/^(?:[a-z]{2}\.)?anthropic\./, '')
    .replace(/\[1m\]$/, '');
}

/** True when one of the id's words is `claude`. */
function isClaude(id: string): boolean {
  return id.split(/[-.:@_]/).includes('claude');
}

/** The id with each word one or two letters off a Claude word spelt right (`claud-sonet-4-6` → `claude-sonnet-4-6`). */
function spellClaude(id: string): string {
  return id.replace(/[a-z]+/g, (word) => {
    if (word.length < 4) return word;
    return CLAUDE_WORDS.find((w) => w[0] === word[0] && editDistance(word, w) <= 2) ?? word;
  });
}
