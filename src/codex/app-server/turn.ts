/**
 * One turn of an app-server thread: the item events of the shared projection as v2 notifications
 * (`item/started`, `item/completed`, `item/agentMessage/delta`, `item/reasoning/summaryTextDelta`,
 * `item/commandExecution/outputDelta`, `item/fileChange/patchUpdated`, `turn/plan/updated`,
 * `turn/diff/updated`, `thread/tokenUsage/updated`, `error`), and the v2 `Turn` it becomes.
 */
import { codexUsage, type ItemEvent, type RequestUsage } from '../items.ts';
import { v2Item, v2Turn, v2Usage, type TurnStatus, type V2Item } from './wire.ts';

/** Sends one notification of the thread to its clients. */
export type Notify = (method: string, params: Record<string, unknown>) => Promise<void>;

/** Token counts so far: the thread's total and the last request's. */
export class ThreadUsage {
  total: RequestUsage = {
    input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    output_tokens: 0,
    thinking_tokens: 0,
  };

  add(u: RequestUsage): { total: Record<string, number>; last: Record<string, number>; modelContextWindow: null } {
    const t = this.total;
    this.total = {
      input_tokens: t.input_tokens + u.input_tokens,
      cache_read_input_tokens: t.cache_read_input_tokens + u.cache_read_input_tokens,
      cache_creation_input_tokens: t.cache_creation_input_tokens + u.cache_creation_input_tokens,
      output_tokens: t.output_tokens + u.output_tokens,
      thinking_tokens: t.thinking_tokens + u.thinking_tokens,
    };
    return { total: v2Usage(codexUsage(this.total)), last: v2Usage(codexUsage(u)), modelContextWindow: null };
  }
}

export class CodexTurn {
  readonly id: string;
  readonly threadId: string;
  /** Milliseconds. */
  readonly startedAtMs: number;
  status: TurnStatus = 'inProgress';
  error: string | null = null;
  /** The turn ends as `interrupted` (turn/interrupt). */
  interrupted = false;
  /** Items completed, in order (thread/read's history). */
  readonly items: V2Item[] = [];
  completedAtMs: number | null = null;
  readonly #started = new Map<string, number>();
  readonly #reasoningParts = new Set<string>();
  readonly #notify: Notify;
  readonly #usage: ThreadUsage;
  readonly #now: () => number;

  constructor(o: { id: string; threadId: string; notify: Notify; usage: ThreadUsage; now?: () => number }) {
    this.id = o.id;
    this.threadId = o.threadId;
    this.#notify = o.notify;
    this.#usage = o.usage;
    this.#now = o.now ?? Date.now;
    this.startedAtMs = this.#now();
  }

  #ids(): { threadId: string; turnId: string } {
    return { threadId: this.threadId, turnId: this.id };
  }

  /** Sends the notifications of one item event. */
  async event(event: ItemEvent): Promise<void> {
    const ids = this.#ids();
    switch (event.type) {
      case 'started': {
        const at = this.#now();
        this.#started.set(event.item.id, at);
        const item = v2Item(event.item, { startedAtMs: at, completedAtMs: null });
        await this.#notify('item/started', { item, ...ids, startedAtMs: at });
        if (event.item.kind === 'fileChange')
          await this.#notify('item/fileChange/patchUpdated', { ...ids, itemId: item.id, changes: item.changes });
        return;
      }
      case 'completed': {
        const at = this.#now();
        const item = v2Item(event.item, { startedAtMs: this.#started.get(event.item.id) ?? at, completedAtMs: at });
        this.items.push(item);
        await this.#notify('item/completed', { item, ...ids, contentTokenCount: null, completedAtMs: at });
        return;
      }
      case 'delta':
        return this.#delta(event.itemId, event.stream, event.delta);
      case 'plan':
        await this.#notify('turn/plan/updated', { ...ids, explanation: null, plan: event.steps });
        return;
      case 'diff':
        await this.#notify('turn/diff/updated', { ...ids, diff: event.diff });
        return;
      case 'usage':
        await this.#notify('thread/tokenUsage/updated', { ...ids, tokenUsage: this.#usage.add(event.usage) });
        return;
      case 'retry':
        await this.#notify('error', { error: turnError(event.message), willRetry: true, ...ids });
        return;
    }
  }

  async #delta(itemId: string, stream: 'agentMessage' | 'reasoning' | 'commandOutput', delta: string): Promise<void> {
    const ids = { ...this.#ids(), itemId };
    if (stream === 'agentMessage') return this.#notify('item/agentMessage/delta', { ...ids, delta });
    if (stream === 'commandOutput') return this.#notify('item/commandExecution/outputDelta', { ...ids, delta });
    if (!this.#reasoningParts.has(itemId)) {
      this.#reasoningParts.add(itemId);
      await this.#notify('item/reasoning/summaryPartAdded', { ...ids, summaryIndex: 0 });
    }
    await this.#notify('item/reasoning/summaryTextDelta', { ...ids, delta, summaryIndex: 0 });
  }

  /** Ends the turn with `status` (an `error` notification first when it failed). */
  async end(status: TurnStatus, error: string | null): Promise<void> {
    this.status = status;
    this.error = error;
    this.completedAtMs = this.#now();
    if (status === 'failed' && error)
      await this.#notify('error', { error: turnError(error), willRetry: false, ...this.#ids() });
  }

  /**
   * The v2 `Turn`: `notLoaded` at turn/start, `summary` (the last agent message) at turn/completed,
   * `full` in a thread's history. The response to turn/start has no start time yet (as codex's).
   */
  toV2(view: 'notLoaded' | 'summary' | 'full', response = false): Record<string, unknown> {
    const done = this.completedAtMs !== null;
    const last = [...this.items].reverse().find((i) => i.type === 'agentMessage');
    return v2Turn({
      id: this.id,
      items: view === 'full' ? this.items : view === 'summary' && last ? [last] : [],
      itemsView: view,
      status: this.status,
      error: this.error,
      startedAt: response ? null : Math.floor(this.startedAtMs / 1000),
      completedAt: done ? Math.floor(this.completedAtMs! / 1000) : null,
      durationMs: done ? this.completedAtMs! - this.startedAtMs : null,
    });
  }
}

/** A v2 `TurnError`. */
export function turnError(message: string): Record<string, unknown> {
  return { message, codexErrorInfo: null, additionalDetails: null };
}
