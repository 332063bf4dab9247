/**
 * Claude Code 2.1.332's answer to a 404 on a streaming request (measured with the differential suite's fake API): it
 * sends the same request once more without streaming (`stream: false`), for a gateway that serves the Messages API
 * but not its event stream; a 404 again is the error. agentpipe does the same on the Claude faces (the request's
 * `betaFallback`), and reads a JSON answer as the events its stream would have had.
 */
import { z } from 'zod';
import { ModelError } from './errors.ts';

const block = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  thinking: z.string().optional(),
  signature: z.string().optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.record(z.string(), z.unknown()).optional(),
});

const message = z.looseObject({
  id: z.string(),
  model: z.string(),
  content: z.array(block),
  stop_reason: z.string().nullable().optional(),
  stop_sequence: z.string().nullable().optional(),
  usage: z.looseObject({}).optional(),
});

/** A 404 answering a streaming request: one Claude Code sends again without streaming. */
export const wantsNonStreaming = (error: unknown) => error instanceof ModelError && error.status === 404;

/** The stream events (raw, as the API's event stream has them) of a whole JSON message. */
export function messageEvents(answer: unknown): Array<Record<string, unknown>> {
  const parsed = message.safeParse(answer);
  if (!parsed.success)
    throw new ModelError({ kind: 'server_error', message: 'The answer without streaming is not a message' });
  const { content, stop_reason, stop_sequence, usage, ...start } = parsed.data;
  const events: Array<Record<string, unknown>> = [
    { type: 'message_start', message: { ...start, content: [], stop_reason: null, stop_sequence: null, usage } },
  ];
  content.forEach((b, index) => {
    const { delta, ...empty } = blockDelta(b);
    events.push({ type: 'content_block_start', index, content_block: empty });
    if (delta) events.push({ type: 'content_block_delta', index, delta });
    if (b.type === 'thinking' && b.signature)
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } });
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason, stop_sequence }, usage: { ...usage } });
  events.push({ type: 'message_stop' });
  return events;
}

/** A block as its start (content empty) and the one delta that fills it. */
function blockDelta(b: z.infer<typeof block>): Record<string, unknown> & { delta?: Record<string, unknown> } {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: '', delta: { type: 'text_delta', text: b.text ?? '' } };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '', delta: { type: 'thinking_delta', thinking: b.thinking } };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: b.id,
        name: b.name,
        input: {},
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input ?? {}) },
      };
    default:
      return { ...b };
  }
}
