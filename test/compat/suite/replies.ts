/** Replies of the fake API for the scenarios: text, tool calls, thinking, errors. */
import { anthropicBlock, anthropicStream, type Reply } from '../../model/fake-servers.ts';
import { answer, calls } from '../side-by-side.ts';

export { answer, calls };

/** A model turn of a thinking block (with its signature) then a text. */
export const thinkThenAnswer = (thinking: string, text: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [
      anthropicBlock(0, { type: 'thinking', thinking: '', signature: '' }, [
        { type: 'thinking_delta', thinking },
        { type: 'signature_delta', signature: 'sig-compat' },
      ]),
      anthropicBlock(1, { type: 'text', text: '' }, [{ type: 'text_delta', text }]),
    ],
    'end_turn',
  ),
});

/** A text turn that ends with `stopReason` (e.g. `max_tokens`). */
export const answerStopping = (text: string, stopReason: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream([anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text }])], stopReason),
});

/** A text turn in several deltas, then tool calls in the same turn. */
export const textThenCalls = (text: string, ...list: Array<[string, string, Record<string, unknown>]>): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [
      anthropicBlock(0, { type: 'text', text: '' }, [
        { type: 'text_delta', text: text.slice(0, 3) },
        { type: 'text_delta', text: text.slice(3) },
      ]),
      ...list.map(([id, name, input], i) =>
        anthropicBlock(i + 1, { type: 'tool_use', id, name, input: {} }, [
          { type: 'input_json_delta', partial_json: JSON.stringify(input) },
        ]),
      ),
    ],
    list.length ? 'tool_use' : 'end_turn',
  ),
});

/** A turn with no content at all. */
export const empty = (): Reply => ({ kind: 'sse', frames: anthropicStream([], 'end_turn') });

/** A JSON error answer of the API. */
export const apiError = (status: number, type: string, message: string, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status,
  body: { type: 'error', error: { type, message } },
  ...(headers ? { headers } : {}),
});

/** A stream cut after its first text delta (the connection dropped). */
export const cut = (text: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text }])],
    'end_turn',
  ).slice(0, 4),
  then: 'destroy',
});
