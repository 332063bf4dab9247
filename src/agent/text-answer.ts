/**
 * One model request whose answer is only text, outside the conversation: compaction's summary,
 * a session title, a side question. Nothing is emitted; the usage is added to `usage`.
 */
import type { AssistantContentBlock } from '../messages/types.ts';
import type { ModelRequest } from '../model/types.ts';
import type { AgentContext } from './context.ts';
import { MessageAssembler } from './assembler.ts';
import type { UsageTracker } from './usage.ts';

/** Streams `request` to its end and returns the text of the answer. */
export async function textAnswer(ctx: AgentContext, request: ModelRequest, usage: UsageTracker): Promise<string> {
  const assembler = new MessageAssembler();
  for await (const event of ctx.provider.stream(request)) {
    assembler.add(event);
    if (event.type === 'message_stop') break;
  }
  const message = assembler.message;
  if (!message) throw new Error('the model stream ended before message_start');
  usage.add(message.model || request.model, message.usage);
  return assembler.finished
    .filter((b): b is Extract<AssistantContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}
