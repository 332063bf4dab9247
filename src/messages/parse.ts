/**
 * Parses one line of stream-json input into an `InputMessage`, or says clearly why not.
 * Unknown `type`s are reported, not fatal (new clients must not break old agents). Checked by
 * hand, not with zod: every stream-json session reads its lines here, and loading zod on this
 * path cost ~11 ms of start-up (measured with the bundled CLI). Field-level schemas (zod) check
 * the requests' contents where they are handled (`initialize`, answers, MCP configs).
 */
import { errorMessage } from '../process/errors.ts';
import type { ControlResponse, InputMessage } from './control.ts';
import { nestedDeeper, tooDeepError } from './json-limits.ts';
import { isRecord } from '../process/guards.ts';

/**
 * What a refused line was, when its top level says so: the session answers it rather than leave
 * its client waiting (a user message gets an error `result`, a control request an error
 * `control_response`).
 */
export type RefusedInput =
  { type: 'user'; uuid?: string } | { type: 'control_request' | 'control_response'; request_id: string };

/** A parsed line, or the reason it was rejected (and what it was, when known). */
export type ParsedLine = { ok: true; message: InputMessage } | { ok: false; error: string; refused?: RefusedInput };

export function parseInputLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, error: `malformed JSON (${errorMessage(error)})`, refused: refusedFromHead(line) };
  }
  if (!isRecord(value)) return { ok: false, error: 'expected a JSON object' };
  const parsed = checkMessage(value);
  const error = !parsed.ok ? parsed.error : nestedDeeper(value) ? tooDeepError() : undefined;
  return error === undefined ? parsed : { ok: false, error, refused: refusedOf(value) };
}

const REQUEST_ID_MAX = 200;

/** What a parsed top level says it is (see RefusedInput). */
function refusedOf(value: Record<string, unknown>): RefusedInput | undefined {
  if (value.type === 'user')
    return typeof value.uuid === 'string' ? { type: 'user', uuid: value.uuid } : { type: 'user' };
  const id =
    value.type === 'control_response' && isRecord(value.response) ? value.response.request_id : value.request_id;
  if (typeof id !== 'string' || id.length > REQUEST_ID_MAX) return undefined;
  if (value.type === 'control_request' || value.type === 'control_response')
    return { type: value.type, request_id: id };
  return undefined;
}

const HEAD_TYPE = /"type"\s*:\s*"([a-z_]{1,40})"/;
const HEAD_REQUEST_ID = /"request_id"\s*:\s*"((?:[^"\\]|\\.){1,200})"/;

/**
 * What a line that could not be parsed (malformed, or over the size limit: only its first characters are kept) says
 * it is, read from its start: its first `"type"`, and a control request's or response's first `"request_id"`.
 */
export function refusedFromHead(head: string): RefusedInput | undefined {
  const start = head.slice(0, 4096);
  const type = HEAD_TYPE.exec(start)?.[1];
  if (type === 'user') return { type: 'user' };
  if (type !== 'control_request' && type !== 'control_response') return undefined;
  const id = HEAD_REQUEST_ID.exec(start)?.[1];
  if (id === undefined) return undefined;
  try {
    const requestId: unknown = JSON.parse(`"${id}"`);
    return typeof requestId === 'string' ? { type, request_id: requestId } : undefined;
  } catch {
    return undefined;
  }
}

/** Checks the shape of a parsed line's top level. */
function checkMessage(value: Record<string, unknown>): ParsedLine {
  switch (value.type) {
    case 'user': {
      const message = value.message;
      if (!isRecord(message)) return { ok: false, error: 'user message without a "message" object' };
      const content = message.content;
      if (typeof content !== 'string' && !Array.isArray(content))
        return { ok: false, error: 'user message content must be a string or an array of blocks' };
      if (Array.isArray(content) && !content.every((b) => isRecord(b) && typeof b.type === 'string')) {
        return { ok: false, error: 'every content block needs a "type"' };
      }
      return { ok: true, message: { ...value, message: { ...message, role: 'user', content } } as InputMessage };
    }
    case 'control_request': {
      const { request_id, request } = value;
      const subtype = isRecord(request) ? request.subtype : undefined;
      if (typeof request_id !== 'string' || !isRecord(request) || typeof subtype !== 'string')
        return { ok: false, error: 'control_request needs a string request_id and a request with a subtype' };
      // The request's fields are checked where it is handled (zod, loaded there).
      return { ok: true, message: { ...value, type: 'control_request', request_id, request: { ...request, subtype } } };
    }
    case 'control_response': {
      const response = controlAnswer(value.response);
      if (!response)
        return { ok: false, error: 'control_response needs response.subtype (success|error) and response.request_id' };
      return { ok: true, message: { ...value, type: 'control_response', response } };
    }
    case 'control_cancel_request': {
      const { request_id } = value;
      if (typeof request_id !== 'string') return { ok: false, error: 'control_cancel_request needs a request_id' };
      return { ok: true, message: { ...value, type: 'control_cancel_request', request_id } };
    }
    case 'keep_alive':
      return { ok: true, message: { type: 'keep_alive' } };
    default:
      return { ok: false, error: `unknown message type ${JSON.stringify(value.type)}` };
  }
}

/** A control response's `response`, when it has a request id and says success or error (an error's text as sent). */
function controlAnswer(value: unknown): ControlResponse['response'] | undefined {
  if (!isRecord(value)) return undefined;
  const { request_id, subtype, response, error, ...rest } = value;
  if (typeof request_id !== 'string') return undefined;
  if (subtype === 'success') return { ...rest, subtype, request_id, ...(isRecord(response) ? { response } : {}) };
  if (subtype === 'error') return { ...rest, subtype, request_id, error: typeof error === 'string' ? error : '' };
  return undefined;
}
