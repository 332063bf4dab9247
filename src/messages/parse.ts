/**
 * Parses one line of stream-json input into an `InputMessage`, or says clearly why not.
 * Unknown `type`s are reported, not fatal (new clients must not break old agents). Checked by
 * hand, not with zod: every stream-json session reads its lines here, and loading zod on this
 * path cost ~11 ms of start-up (measured with the bundled CLI). Field-level schemas (zod) check
 * the requests' contents where they are handled (`initialize`, answers, MCP configs).
 */
import type { InputMessage } from './control.ts';

/** A parsed line, or the reason it was rejected. */
export type ParsedLine = { ok: true; message: InputMessage } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseInputLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, error: `malformed JSON (${(error as Error).message})` };
  }
  if (!isObject(value)) return { ok: false, error: 'expected a JSON object' };
  switch (value.type) {
    case 'user': {
      const message = value.message;
      if (!isObject(message)) return { ok: false, error: 'user message without a "message" object' };
      const content = message.content;
      if (typeof content !== 'string' && !Array.isArray(content))
        return { ok: false, error: 'user message content must be a string or an array of blocks' };
      if (Array.isArray(content) && !content.every((b) => isObject(b) && typeof b.type === 'string')) {
        return { ok: false, error: 'every content block needs a "type"' };
      }
      return { ok: true, message: { ...value, message: { ...message, role: 'user', content } } as InputMessage };
    }
    case 'control_request':
      if (
        typeof value.request_id !== 'string' ||
        !isObject(value.request) ||
        typeof value.request.subtype !== 'string'
      ) {
        return { ok: false, error: 'control_request needs a string request_id and a request with a subtype' };
      }
      return { ok: true, message: value as unknown as InputMessage };
    case 'control_response': {
      const response = value.response;
      if (
        !isObject(response) ||
        typeof response.request_id !== 'string' ||
        (response.subtype !== 'success' && response.subtype !== 'error')
      ) {
        return { ok: false, error: 'control_response needs response.subtype (success|error) and response.request_id' };
      }
      return { ok: true, message: value as unknown as InputMessage };
    }
    case 'control_cancel_request':
      if (typeof value.request_id !== 'string')
        return { ok: false, error: 'control_cancel_request needs a request_id' };
      return { ok: true, message: value as unknown as InputMessage };
    case 'keep_alive':
      return { ok: true, message: { type: 'keep_alive' } };
    default:
      return { ok: false, error: `unknown message type ${JSON.stringify(value.type)}` };
  }
}
