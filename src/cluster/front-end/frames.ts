/** What a front end reads from a client's WebSocket frames and what it makes of them for the inbox. */
import { nestedDeeper } from '../../messages/json-limits.ts';
import { randomUUID } from 'node:crypto';
import type { LogMessage } from '../log/index.ts';

/** The inbox line that ends a session's run. */
export const END_INPUT = '{"type":"end_input"}';

/** An input line for the inbox; a user message's parsed value too (with its uuid). */
export interface InboxLine {
  line: string;
  prompt: boolean;
  user?: Record<string, unknown> & { uuid: string };
}

/** An input line as the inbox keeps it: undefined for transport-only lines; user messages get a uuid. */
export function inboxLine(line: string): InboxLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { line, prompt: false }; // the worker's parser reports it
  }
  // Too deep to rewrite safely (JSON.stringify would overflow the stack): the worker's parser refuses it.
  if (typeof value !== 'object' || value === null || Array.isArray(value) || nestedDeeper(value))
    return { line, prompt: false };
  const type = 'type' in value ? value.type : undefined;
  if (type === 'keep_alive') return undefined;
  if (type === 'end_input') return { line: END_INPUT, prompt: false };
  if (type !== 'user') return { line, prompt: false };
  if ('uuid' in value && typeof value.uuid === 'string')
    return { line, prompt: true, user: { ...value, uuid: value.uuid } };
  const user = { ...value, uuid: randomUUID() };
  return { line: JSON.stringify(user), prompt: true, user };
}

/** True for the messages that show a prompt is being answered: its first delta, assistant message or result. */
export function answers(message: LogMessage): boolean {
  if (message.type === 'assistant' || message.type === 'result') return true;
  return message.type === 'stream_event' && message.event.type === 'content_block_delta';
}
