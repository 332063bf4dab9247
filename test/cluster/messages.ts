/** Messages for the cluster tests, shaped as agentpipe emits them (so a transcript reader accepts them). */
import { randomUUID } from 'node:crypto';
import type { LogMessage } from '../../src/cluster/redis.ts';

const envelope = (sessionId: string): { parent_tool_use_id: null; session_id: string; uuid: string } => ({
  parent_tool_use_id: null,
  session_id: sessionId,
  uuid: randomUUID(),
});

/** A user message. */
export function user(sessionId: string, text: string): LogMessage {
  return { type: 'user', message: { role: 'user', content: text }, ...envelope(sessionId) } as unknown as LogMessage;
}

/** The prompt line of a turn, as Transcript.recordPrompt writes it. */
export function prompt(sessionId: string, text: string): LogMessage {
  return {
    ...user(sessionId, text),
    timestamp: new Date().toISOString(),
    agentpipe_prompt: true,
  } as unknown as LogMessage;
}

/** A complete assistant message. */
export function assistant(sessionId: string, text: string): LogMessage {
  return {
    type: 'assistant',
    message: {
      id: `msg_${randomUUID().replace(/-/g, '')}`,
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      content: [{ type: 'text', text, citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
    ...envelope(sessionId),
  } as unknown as LogMessage;
}

/** A partial text delta (ephemeral). */
export function delta(sessionId: string, text: string): LogMessage {
  const event = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } };
  return { type: 'stream_event', event, ...envelope(sessionId) } as unknown as LogMessage;
}

/** The `system/init` message. */
export function init(sessionId: string): LogMessage {
  const fields = { cwd: '/tmp', tools: [], model: 'scripted', permissionMode: 'default' };
  return { type: 'system', subtype: 'init', ...fields, ...envelope(sessionId) } as unknown as LogMessage;
}

/** A successful result. */
export function result(sessionId: string, text: string): LogMessage {
  return {
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: text,
    duration_ms: 1,
    duration_api_ms: 1,
    num_turns: 1,
    total_cost_usd: 0,
    usage: { input_tokens: 1, output_tokens: 1 },
    ...envelope(sessionId),
  } as unknown as LogMessage;
}

/** The text a test message carries (user content, assistant text, delta text). */
export function textOf(message: LogMessage): string {
  const m = message as unknown as {
    message?: { content?: unknown };
    event?: { delta?: { text?: string } };
    result?: string;
  };
  if (typeof m.message?.content === 'string') return m.message.content;
  if (Array.isArray(m.message?.content))
    return (m.message.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('');
  return m.event?.delta?.text ?? m.result ?? '';
}
