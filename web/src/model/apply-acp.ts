/** ACP session updates → items: user prompts, streamed text and thoughts, tool cards, the plan. */
import type { SessionUpdate } from '../../../src/sdk/acp-types.ts';
import type { ViewStore } from './store.ts';
import type { ToolItem, UserItem } from './types.ts';

export function applyUpdate(store: ViewStore, update: SessionUpdate, parent: string | null, source: string): void {
  switch (update.sessionUpdate) {
    case 'user_message_chunk': {
      const last = store.items.at(-1);
      let item: UserItem;
      if (last?.kind === 'user' && last.source === source) item = last;
      else {
        store.closeOpen();
        store.turn++;
        item = { kind: 'user', key: store.nextKey('u'), rev: 0, turn: store.turn, text: '', images: [], source };
        store.add(item);
      }
      if (update.content.type === 'text') item.text += (item.text ? '\n' : '') + update.content.text;
      else item.images.push(update.content);
      store.touch(item);
      return;
    }
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      if (update.content.type !== 'text') return;
      const kind = update.sessionUpdate === 'agent_message_chunk' ? 'text' : 'thought';
      const last = store.items.at(-1);
      if (last && last.kind === kind && last.open) {
        last.text += update.content.text;
        store.touch(last);
      } else {
        store.add({
          kind,
          key: store.nextKey('t'),
          rev: 0,
          turn: Math.max(store.turn, 1),
          text: update.content.text,
          open: true,
        });
      }
      return;
    }
    case 'tool_call': {
      if (!parent) store.closeOpen();
      const input = (update.rawInput ?? {}) as Record<string, unknown>;
      const card: ToolItem = {
        kind: 'tool',
        key: `tool-${update.toolCallId}`,
        rev: 0,
        turn: Math.max(store.turn, 1),
        id: update.toolCallId,
        name: '',
        title: update.title,
        toolKind: update.kind,
        status: 'pending',
        rawInput: update.rawInput,
        content: update.content ?? [],
        locations: update.locations ?? [],
        children: [],
        ...(typeof input.subagent_type === 'string' ? { agentName: input.subagent_type } : {}),
      };
      store.tools.set(card.id, card);
      if (parent && store.tools.has(parent)) store.parentOf.set(card.id, parent);
      store.add(card, parent && store.tools.has(parent) ? parent : null);
      return;
    }
    case 'tool_call_update': {
      const card = store.tools.get(update.toolCallId);
      if (!card) return;
      if (update.status === 'in_progress') card.status = 'running';
      else if (update.status) card.status = update.status;
      if (update.title) card.title = update.title;
      if (update.content) card.content = update.content;
      if (update.locations) card.locations = update.locations;
      if (update.rawOutput !== undefined) card.rawOutput = update.rawOutput;
      store.touchTool(card.id);
      return;
    }
    case 'plan':
      store.plan = update.entries;
      return;
  }
}
