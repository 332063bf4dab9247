/** Conversions between ACP payloads and agentpipe's messages and options. */
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type {
  ImageMediaType,
  MessageParam,
  ResultMessage,
  UserContentBlock,
  PermissionMode,
} from '../messages/types.ts';

/**
 * An ACP prompt (checked by the ACP SDK) as the content of a user message; throws on an image type models do not take.
 */
export function promptContent(blocks: ContentBlock[]): UserContentBlock[] {
  const content: UserContentBlock[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && block.text) content.push({ type: 'text', text: block.text });
    else if (block.type === 'image' && block.data && block.mimeType)
      content.push({
        type: 'image',
        source: { type: 'base64', media_type: imageType(block.mimeType), data: block.data },
      });
    else if (block.type === 'resource_link' && block.uri)
      content.push({ type: 'text', text: `[@${block.name ?? block.uri}](${block.uri})` });
    else if (block.type === 'resource' && 'text' in block.resource) {
      content.push({ type: 'text', text: `<context ref="${block.resource.uri}">\n${block.resource.text}\n</context>` });
    }
  }
  return content;
}

const IMAGE_TYPES: readonly ImageMediaType[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function imageType(mimeType: string): ImageMediaType {
  const type = IMAGE_TYPES.find((t) => t === mimeType);
  if (!type)
    throw new Error(`unsupported image type ${JSON.stringify(mimeType)}; expected one of ${IMAGE_TYPES.join(', ')}`);
  return type;
}

/** The content of a saved prompt as ACP content blocks (what the client sent, as far as it was kept). */
export function acpContentOf(content: MessageParam['content']): Array<Record<string, unknown>> {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const blocks: Array<Record<string, unknown>> = [];
  for (const block of content) {
    if (block.type === 'text' && block.text) blocks.push({ type: 'text', text: block.text });
    else if (block.type === 'image')
      blocks.push({ type: 'image', data: block.source.data, mimeType: block.source.media_type });
  }
  return blocks;
}

/** ACP stop reason of a prompt's result; undefined when the prompt failed (answered as a JSON-RPC error). */
export function stopReasonOf(
  result: ResultMessage,
): 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled' | undefined {
  if (result.terminal_reason === 'aborted_streaming' || result.terminal_reason === 'aborted_tools') return 'cancelled';
  if (
    result.subtype === 'error_max_turns' ||
    result.subtype === 'error_max_budget_usd' ||
    result.subtype === 'error_max_structured_output_retries'
  )
    return 'max_turn_requests';
  if (result.stop_reason === 'max_tokens') return 'max_tokens';
  if (result.stop_reason === 'refusal') return 'refusal';
  return result.subtype === 'success' && !result.is_error ? 'end_turn' : undefined;
}

/**
 * The token counts of a prompt's result, as the `usage` of ACP's PromptResponse (unstable in ACP: clients that do not
 * know it ignore it; agentpipe's ACP harness reads it).
 */
export function promptUsageOf(result: ResultMessage): {
  totalTokens: number;
  inputTokens: number;
  outputTokens: number;
  cachedReadTokens: number;
  cachedWriteTokens: number;
} {
  const u = result.usage;
  const counts = {
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    cachedReadTokens: u.cache_read_input_tokens,
    cachedWriteTokens: u.cache_creation_input_tokens,
  };
  return {
    totalTokens: counts.inputTokens + counts.outputTokens + counts.cachedReadTokens + counts.cachedWriteTokens,
    ...counts,
  };
}

/** The `usage_update` of a result: context used of its window, and the cost. */
export function usageUpdateOf(
  result: ResultMessage,
  contextTokens: number,
): { sessionUpdate: 'usage_update'; used: number; size: number; cost: { amount: number; currency: string } } {
  const size = Math.max(0, ...Object.values(result.modelUsage).map((u) => u.contextWindow));
  return {
    sessionUpdate: 'usage_update',
    used: contextTokens,
    size,
    cost: { amount: result.total_cost_usd, currency: 'USD' },
  };
}

export const MODES: Array<{ id: PermissionMode; name: string; description: string }> = [
  { id: 'default', name: 'Default', description: 'Ask before edits and commands' },
  { id: 'acceptEdits', name: 'Accept Edits', description: 'Edit files without asking' },
  { id: 'plan', name: 'Plan', description: 'Read-only: plan without changing anything' },
  { id: 'bypassPermissions', name: 'Bypass Permissions', description: 'Run every tool without asking' },
  { id: 'dontAsk', name: "Don't Ask", description: 'Deny what is not allowed instead of asking' },
];
