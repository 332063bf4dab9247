/**
 * The page's state. Every stream message goes through the library's two projections
 * (AcpUpdateProjector: text, thoughts, tool cards, diffs, plan; SessionEventProjector: header,
 * subagent text, hooks, compaction, errors, usage) and the results are applied here. Only the
 * few wire fields no projection carries are read directly (turns and duration of `result`,
 * its permission denials, `tool_progress` seconds, `api_retry`).
 */
import { AcpUpdateProjector } from '../../../src/sdk/acp-updates.ts';
import { SessionEventProjector } from '../../../src/sdk/session-events.ts';
import type { AgentMessage } from '../../../src/messages/types.ts';
import type { Header, Item, PlanEntry, Totals, ToolItem } from './types.ts';
import { applyUpdate } from './apply-acp.ts';
import { applyEvent } from './apply-events.ts';
import { applyRaw } from './apply-raw.ts';
import { timingRecord, type TimingRecord } from './waterfall.ts';

export const emptyTotals = (): Totals => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cost: 0,
  turns: 0,
  durationMs: 0,
});

export class ViewStore {
  items: Item[] = [];
  readonly tools = new Map<string, ToolItem>();
  plan: PlanEntry[] = [];
  header: Header = { model: '', sessionId: '', permissionMode: '', cwd: '', version: '' };
  /** Totals of the finished prompts. */
  totals: Totals = emptyTotals();
  /** Usage of the running prompt, per API message id (replaced by the result's figures). */
  readonly pendingUsage = new Map<string, { input: number; output: number; cacheRead: number; cacheWrite: number }>();
  running = false;
  turn = 0;
  /** Bumped on every change. */
  version = 0;
  /** What each prompt's messages say about time, per prompt (the waterfall's input). */
  readonly timing: TimingRecord[][] = [];
  #promptOpen = false;
  /** Which raw message the last user item came from (its blocks form one item). */
  lastUserSource = '';
  readonly #acp = new AcpUpdateProjector();
  readonly #events = new SessionEventProjector();
  readonly #listeners = new Set<() => void>();
  #keys = 0;
  #scheduled = false;

  nextKey(prefix: string): string {
    return `${prefix}${++this.#keys}`;
  }

  push(message: AgentMessage, source = ''): void {
    if (!message || typeof message !== 'object' || typeof (message as { type?: unknown }).type !== 'string') return;
    const parent = (message as { parent_tool_use_id?: string | null }).parent_tool_use_id ?? null;
    const src = source || (message as { uuid?: string }).uuid || this.nextKey('m');
    for (const event of this.#events.push(message)) applyEvent(this, event);
    for (const update of this.#acp.push(message)) applyUpdate(this, update, parent, src);
    applyRaw(this, message);
    this.#time(message as unknown as Record<string, unknown>);
    this.changed();
  }

  /** Keeps what a message says about time in its prompt's records (a result ends the prompt). */
  #time(message: Record<string, unknown>): void {
    const record = timingRecord(message);
    if (!record) return;
    if (!this.#promptOpen) this.timing.push([]);
    this.timing.at(-1)!.push(record);
    this.#promptOpen = record.k !== 'result';
  }

  /** The container a new item of `parent` goes into: the Task card's children, or the top level. */
  containerOf(parent: string | null): Item[] {
    const card = parent ? this.tools.get(parent) : undefined;
    if (card) return card.children;
    return this.items;
  }

  /** Adds an item; subagent items also bump their card so it renders again. */
  add(item: Item, parent: string | null = null): void {
    this.containerOf(parent).push(item);
    if (parent) this.touchTool(parent);
  }

  touch(item: Item): void {
    item.rev++;
  }

  /** Bumps a card and every card it is nested in. */
  touchTool(id: string): void {
    let card = this.tools.get(id);
    const seen = new Set<string>();
    while (card && !seen.has(card.id)) {
      seen.add(card.id);
      card.rev++;
      card = this.parentOf.get(card.id) ? this.tools.get(this.parentOf.get(card.id)!) : undefined;
    }
  }

  readonly parentOf = new Map<string, string>();

  /** Closes the streaming text and thought items (a new API message starts). */
  closeOpen(): void {
    for (let i = this.items.length - 1; i >= 0 && i >= this.items.length - 3; i--) {
      const item = this.items[i];
      if ((item.kind === 'text' || item.kind === 'thought') && item.open) {
        item.open = false;
        item.rev++;
      }
    }
  }

  /** Tokens and cost shown in the footer: finished prompts plus the running one. */
  liveTotals(): Totals {
    const t = { ...this.totals };
    for (const u of this.pendingUsage.values()) {
      t.input += u.input;
      t.output += u.output;
      t.cacheRead += u.cacheRead;
      t.cacheWrite += u.cacheWrite;
    }
    return t;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Notifies the page at most once per animation frame. */
  changed(): void {
    this.version++;
    if (this.#scheduled) return;
    this.#scheduled = true;
    const run = () => {
      this.#scheduled = false;
      for (const listener of this.#listeners) listener();
    };
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(run);
    else queueMicrotask(run);
  }
}
