/**
 * Session events → header, subagent text, running state, notices (hooks, compaction, errors,
 * aborts) and the usage totals.
 */
import type { SessionEvent } from '../../../src/sdk/session-events.ts';
import type { ViewStore } from './store.ts';
import type { NoticeItem, NoticeLevel } from './types.ts';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export function notice(
  store: ViewStore,
  level: NoticeLevel,
  title: string,
  detail?: string,
  parent: string | null = null,
): NoticeItem {
  store.closeOpen();
  const item: NoticeItem = {
    kind: 'notice',
    key: store.nextKey('n'),
    rev: 0,
    turn: Math.max(store.turn, 1),
    level,
    title,
    ...(detail ? { detail } : {}),
  };
  store.add(item, parent);
  return item;
}

/** Applies one event; its fields are still read defensively (a live page gets them over the wire). */
export function applyEvent(store: ViewStore, event: SessionEvent): void {
  const { type, data: d } = event;
  const parent = ('parentToolCallId' in d ? str(d.parentToolCallId) : '') || null;
  switch (type) {
    case 'session.start': {
      const context = (d.context ?? {}) as { cwd?: string };
      store.header = {
        model: str(d.selectedModel),
        sessionId: str(d.sessionId),
        permissionMode: str(d.permissionMode),
        cwd: str(context.cwd),
        version: str(d.agentpipeVersion),
      };
      store.running = true;
      return;
    }
    case 'assistant.message_start':
      store.running = true;
      if (!parent) store.closeOpen();
      return;
    case 'assistant.message': {
      if (!parent || !str(d.content) || !store.tools.has(parent)) return;
      // The event comes when the API message ends: its text goes before the calls it made.
      const calls = new Set(((d.toolRequests ?? []) as Array<{ toolCallId: string }>).map((r) => r.toolCallId));
      const children = store.tools.get(parent)!.children;
      const at = children.findIndex((c) => c.kind === 'tool' && calls.has(c.id));
      children.splice(at < 0 ? children.length : at, 0, {
        kind: 'text',
        key: store.nextKey('s'),
        rev: 0,
        turn: store.turn,
        text: str(d.content),
        open: false,
      });
      store.touchTool(parent);
      return;
    }
    case 'assistant.reasoning':
      if (parent && str(d.content) && store.tools.has(parent)) {
        store.add(
          { kind: 'thought', key: store.nextKey('s'), rev: 0, turn: store.turn, text: str(d.content), open: false },
          parent,
        );
      }
      return;
    case 'tool.execution_start': {
      const card = store.tools.get(str(d.toolCallId));
      if (!card) return;
      card.name = str(d.toolName);
      if (card.status === 'pending') {
        card.status = 'running';
        card.startedAt = Date.now();
      }
      store.touchTool(card.id);
      return;
    }
    case 'hook.end': {
      const ok = d.success === true;
      const error = (d.error ?? {}) as { message?: string };
      notice(
        store,
        'hook',
        `${str(d.hookName) || str(d.hookType)} hook ${ok ? 'ran' : 'failed'}`,
        ok ? str(d.result) : str(error.message),
        parent,
      );
      return;
    }
    case 'session.compaction_start':
      notice(store, 'compaction', 'Compacting the conversation…');
      return;
    case 'session.compaction_complete':
      notice(
        store,
        'compaction',
        `Conversation compacted (${str(d.trigger) || 'auto'})`,
        `${num(d.preCompactionTokens).toLocaleString('en-US')} → ` +
          `${num(d.postCompactionTokens).toLocaleString('en-US')} tokens`,
      );
      return;
    case 'session.error':
      notice(store, 'error', `Error: ${str(d.errorType)}`, str(d.message));
      return;
    case 'abort':
      notice(store, 'abort', 'Interrupted', str(d.reason));
      return;
    case 'assistant.usage': {
      const t = store.totals;
      t.input += num(d.inputTokens);
      t.output += num(d.outputTokens);
      t.cacheRead += num(d.cacheReadTokens);
      t.cacheWrite += num(d.cacheWriteTokens);
      t.cost += num(d.cost);
      return;
    }
    case 'session.idle':
      store.running = false;
      store.pendingUsage.clear();
      store.closeOpen();
      return;
    default:
      return;
  }
}
