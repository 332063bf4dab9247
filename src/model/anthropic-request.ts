/**
 * The body of a Messages API request as the official `@anthropic-ai/sdk` sends it, from our `ModelRequest`
 * (anthropic.ts streams it; `test/model/anthropic.unit.test.ts` holds the two side by side).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '../messages/types.ts';
import { thinkingOf, type ModelRequest, type RequestThinkingDisplay, type ThinkingConfig } from './types.ts';

/** The API's `thinking`, with the `updates` display the SDK's types do not list yet (the API takes it with a beta). */
type ApiThinking =
  | { type: 'disabled' }
  | { type: 'adaptive'; display?: RequestThinkingDisplay }
  | { type: 'enabled'; budget_tokens: number; display?: RequestThinkingDisplay };

/** The request's body; `context_management` is newer than the SDK's types too. */
export type RequestBody = Omit<Anthropic.MessageCreateParamsStreaming, 'thinking'> & {
  thinking?: ApiThinking;
  context_management?: ModelRequest['contextManagement'];
};

/** The streaming body of `request`. */
export function requestBody(request: ModelRequest): RequestBody {
  const body: RequestBody = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages: toApiMessages(request.messages),
    stream: true,
  };
  if (request.system !== '') body.system = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
    }));
  }
  const thinking = thinkingOf(request);
  if (thinking) body.thinking = apiThinking(thinking);
  if (request.contextManagement) body.context_management = request.contextManagement;
  if (request.effort) body.output_config = { effort: request.effort };
  return body;
}

/** Our thinking config → the API's (enabled without a budget is adaptive, as the official SDK maps it). */
function apiThinking(thinking: ThinkingConfig): ApiThinking {
  if (thinking.type === 'disabled') return { type: 'disabled' };
  const display = thinking.display ? { display: thinking.display } : {};
  if (thinking.type === 'enabled' && thinking.budgetTokens !== undefined)
    return { type: 'enabled', budget_tokens: thinking.budgetTokens, ...display };
  return { type: 'adaptive', ...display };
}

/** Anthropic rejects thinking blocks without a signature (e.g. from another provider's history): drop them. */
function toApiMessages(messages: MessageParam[]): Anthropic.MessageParam[] {
  return messages.map((message) => {
    if (typeof message.content === 'string' || message.role !== 'assistant') return message as Anthropic.MessageParam;
    const kept = message.content.filter((block) => !(block.type === 'thinking' && block.signature === ''));
    return { role: message.role, content: kept.length > 0 ? kept : message.content } as Anthropic.MessageParam;
  });
}
