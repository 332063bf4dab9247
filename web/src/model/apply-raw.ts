/**
 * The few wire fields neither projection carries: a prompt's turns and duration and its
 * permission denials (`result`), the seconds of `tool_progress`, `api_retry`, `worker_lost`, and the usage of
 * the running prompt (so the footer moves before the result arrives).
 */
import type { AgentMessage } from '../../../src/messages/types.ts';
import { notice } from './apply-events.ts';
import type { ViewStore } from './store.ts';
import type { Item } from './types.ts';

export function applyRaw(store: ViewStore, message: AgentMessage): void {
  switch (message.type) {
    case 'tool_progress': {
      const card = store.tools.get(message.tool_use_id);
      if (!card) return;
      card.elapsed = message.elapsed_time_seconds;
      if (card.status === 'pending') card.status = 'running';
      store.touchTool(card.id);
      return;
    }
    case 'assistant': {
      const u = message.message.usage;
      if (!u || message.error) return;
      store.pendingUsage.set(message.message.id, {
        input: u.input_tokens ?? 0,
        output: u.output_tokens ?? 0,
        cacheRead: u.cache_read_input_tokens ?? 0,
        cacheWrite: u.cache_creation_input_tokens ?? 0,
      });
      return;
    }
    case 'system':
      // A cluster worker lost mid-session: another took it over (the prompt goes on there), never "interrupted".
      if (message.subtype === 'worker_lost')
        notice(store, 'retry', 'Worker lost: the session was taken over', message.content);
      if (message.subtype === 'api_retry') {
        notice(
          store,
          'retry',
          `Model request failed (${message.error_status ?? message.error}); retry ${message.attempt} of ` +
            `${message.max_retries}`,
          `in ${message.retry_delay_ms} ms`,
        );
      }
      return;
    case 'result': {
      store.totals.turns += message.num_turns ?? 0;
      store.totals.durationMs += message.duration_ms ?? 0;
      store.pendingUsage.clear();
      store.running = false;
      for (const denial of message.permission_denials ?? []) markDenied(store, denial.tool_use_id, denial.tool_name);
      return;
    }
    default:
      return;
  }
}

/** Marks a card denied and puts a denial notice right after it. */
function markDenied(store: ViewStore, id: string, toolName: string): void {
  const card = store.tools.get(id);
  const why = card ? outputText(card.content) : '';
  if (!card) {
    notice(store, 'denial', `Permission denied: ${toolName}`, why);
    return;
  }
  card.denied = why || 'denied';
  store.touchTool(card.id);
  const parent = store.parentOf.get(card.id) ?? null;
  const container = store.containerOf(parent);
  const item: Item = {
    kind: 'notice',
    key: store.nextKey('n'),
    rev: 0,
    turn: card.turn,
    level: 'denial',
    title: `Permission denied: ${card.title}`,
    ...(why ? { detail: why } : {}),
  };
  const at = container.indexOf(card);
  container.splice(at < 0 ? container.length : at + 1, 0, item);
  if (parent) store.touchTool(parent);
}

function outputText(content: Array<{ type: string; content?: { type: string; text?: string } }>): string {
  return content
    .map((c) => (c.type === 'content' && c.content?.type === 'text' ? (c.content.text ?? '') : ''))
    .join('');
}
