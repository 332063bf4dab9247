/**
 * The translation of one `codex exec --json` prompt's events (exec-events.ts) into the message union, for
 * CodexExecHarness (exec.ts): messages, Bash calls, Edit/Write calls, TodoWrite and MCP calls.
 */
import type { AssistantContentBlock, AssistantMessage } from '../../messages/types.ts';
import { INTERRUPTED_TOOLS } from '../../messages/notices.ts';
import { newApiId } from '../../messages/ids.ts';
import { readFile } from 'node:fs/promises';
import { todoWriteAnswer } from '../../tools/builtin/todo-write.ts';
import type { TurnState } from '../turn-state.ts';
import { str } from '../../process/guards.ts';
import { CodexExecEventSchema, CodexItemSchema, type CodexItem, type CodexItemOf } from './exec-events.ts';
import { commandResult, unwrapShell } from './shared.ts';
import type { CodexExecHarness } from './exec.ts';

type Json = Record<string, unknown>;

/**
 * A whole text as the stream events of `final` (same message id, so faces show it once): codex exec
 * prints no token deltas. (TurnState.streamText starts a message of its own id.)
 */
async function streamWhole(s: TurnState, final: AssistantMessage, text: string, thinking: boolean): Promise<void> {
  const start = { ...final.message, content: [], stop_reason: null };
  await s.streamEvent({ type: 'message_start', message: start });
  const block: AssistantContentBlock = thinking
    ? { type: 'thinking', thinking: '', signature: '' }
    : { type: 'text', text: '', citations: null };
  await s.streamEvent({ type: 'content_block_start', index: 0, content_block: block });
  const delta = thinking
    ? { type: 'thinking_delta' as const, thinking: text, estimated_tokens: null }
    : { type: 'text_delta' as const, text };
  await s.streamEvent({ type: 'content_block_delta', index: 0, delta });
  await s.streamEvent({ type: 'content_block_stop', index: 0 });
}

/** Where an item is in its life. */
type Phase = 'started' | 'updated' | 'completed';
const PHASES = { 'item.started': 'started', 'item.updated': 'updated', 'item.completed': 'completed' } as const;

/** The translation of one prompt's events. */
export class CodexTurn {
  completed = false;
  failed: string | undefined;
  lastError: string | undefined;
  /** Open tool calls by codex item id. */
  readonly #open = new Map<string, string>();
  /** File contents read when a file change started (may already be the new text). */
  readonly #before = new Map<string, Map<string, string>>();
  /** The last to-do list emitted per item. */
  readonly #todos = new Map<string, string>();
  #todoCalls = 0;

  readonly harness: CodexExecHarness;
  readonly state: TurnState;

  constructor(harness: CodexExecHarness, state: TurnState) {
    this.harness = harness;
    this.state = state;
  }

  /** Translates one line of codex, parsed here into its declared event (exec-events.ts). */
  async event(value: Json): Promise<void> {
    const s = this.state;
    const parsed = CodexExecEventSchema.safeParse(value);
    if (!parsed.success) return s.unknown(`event type ${str(value.type) ?? '(no type)'}`);
    const e = parsed.data;
    switch (e.type) {
      case 'thread.started': {
        const id = e.thread_id;
        if (id) this.harness.thread(id);
        const { model, cwd, permissionMode } = this.harness.config;
        await s.init({ nativeSessionId: id, model, cwd, permissionMode });
        return;
      }
      case 'turn.started':
        return;
      case 'turn.completed': {
        this.completed = true;
        const input = e.usage?.input_tokens ?? 0;
        const cached = e.usage?.cached_input_tokens ?? 0;
        // OpenAI counts cached tokens in input_tokens; Anthropic's usage (the result's) does not.
        s.turn.usage.add(this.harness.model, {
          input_tokens: Math.max(0, input - cached),
          output_tokens: e.usage?.output_tokens ?? 0,
          cache_read_input_tokens: cached,
          cache_creation_input_tokens: e.usage?.cache_write_input_tokens ?? 0,
        });
        return;
      }
      case 'turn.failed':
        this.failed = e.error?.message ?? 'codex reported a failed turn';
        return;
      case 'error': {
        const text = e.message ?? 'codex reported an error';
        this.lastError = text;
        this.harness.config.warn(`harness codex: ${text}`);
        return;
      }
      case 'item.started':
      case 'item.updated':
      case 'item.completed': {
        if (!e.item) return s.unknown(`${e.type} without an item`);
        const item = CodexItemSchema.safeParse(e.item);
        if (!item.success) return s.unknown(`item type ${str(e.item.type) ?? '(no type)'}`);
        await this.#item(PHASES[e.type], item.data);
        return;
      }
    }
  }

  async #toolUse(itemId: string, name: string, input: Json): Promise<string> {
    const id = newApiId('toolu');
    this.#open.set(itemId, id);
    await this.state.emit(
      this.state.assistant([{ type: 'tool_use', id, name, input }], this.harness.model, 'tool_use'),
    );
    return id;
  }

  async #toolResult(itemId: string, content: string, isError: boolean, result?: unknown): Promise<void> {
    const id = this.#open.get(itemId);
    if (!id) return;
    this.#open.delete(itemId);
    await this.state.emit(this.state.toolResult(id, content, isError, result));
  }

  /** Ends the tool calls codex left open (interrupted, or the process ended mid-call). */
  async closeOpen(): Promise<void> {
    for (const itemId of [...this.#open.keys()]) await this.#toolResult(itemId, INTERRUPTED_TOOLS, true);
  }

  async #item(phase: Phase, item: CodexItem): Promise<void> {
    switch (item.type) {
      case 'agent_message':
      case 'plan':
      case 'reasoning':
        return this.#message(phase, item);
      case 'command_execution':
        return this.#command(phase, item);
      case 'file_change':
        return this.#fileChange(phase, item);
      case 'todo_list':
        return this.#todoList(item);
      case 'mcp_tool_call':
        return this.#mcpCall(phase, item);
      case 'web_search': {
        const id = item.id ?? '';
        const query = item.query ?? '';
        if (!(await this.#opened(phase, id, 'WebSearch', { query }))) return;
        if (phase === 'completed') await this.#toolResult(id, `Web search: ${query}`, false, { query, results: [] });
        return;
      }
      case 'error':
        if (phase === 'completed')
          this.harness.config.warn(`harness codex: ${item.message ?? 'codex reported an error'}`);
        return;
    }
  }

  /**
   * Opens the tool call of item `id` on its first sight (an update of an item never started is skipped); false when
   * there is nothing to do for this phase.
   */
  async #opened(phase: Phase, id: string, name: string, input: Json): Promise<boolean> {
    if (this.#open.has(id)) return true;
    if (phase === 'updated') return false;
    await this.#toolUse(id, name, input);
    return true;
  }

  async #message(phase: Phase, item: CodexItemOf<'agent_message' | 'plan' | 'reasoning'>): Promise<void> {
    const s = this.state;
    const text = item.text;
    if (phase !== 'completed' || !text) return;
    const thinking = item.type === 'reasoning';
    const block: AssistantContentBlock = thinking
      ? { type: 'thinking', thinking: text, signature: '' }
      : { type: 'text', text, citations: null };
    const final = s.assistant([block], this.harness.model);
    if (s.config.includePartialMessages) await streamWhole(s, final, text, thinking);
    await s.emit(final);
  }

  async #command(phase: Phase, item: CodexItemOf<'command_execution'>): Promise<void> {
    const id = item.id ?? '';
    const command = unwrapShell(item.command ?? '');
    if (!(await this.#opened(phase, id, 'Bash', { command })) || phase !== 'completed') return;
    const done = commandResult(item.aggregated_output ?? '', item.exit_code, item.status);
    await this.#toolResult(id, done.content, done.isError, done.result);
  }

  async #fileChange(phase: Phase, item: CodexItemOf<'file_change'>): Promise<void> {
    const id = item.id ?? '';
    const changes = item.changes;
    if (phase === 'started') {
      const before = new Map<string, string>();
      for (const c of changes) {
        const text = await readFile(c.path, 'utf8').catch(() => null); // not there (yet): a new file
        if (text !== null) before.set(c.path, text);
      }
      this.#before.set(id, before);
      return;
    }
    if (phase !== 'completed') return;
    const before = this.#before.get(id);
    this.#before.delete(id);
    for (const [n, change] of changes.entries()) {
      const key = `${id}#${n}`;
      if (item.status === 'failed') {
        const name = change.kind === 'add' ? 'Write' : 'Edit';
        await this.#toolUse(key, name, {
          file_path: change.path,
          ...(name === 'Write' ? { content: '' } : { old_string: '', new_string: '' }),
        });
        await this.#toolResult(
          key,
          `<tool_use_error>codex could not apply its patch to ${change.path}</tool_use_error>`,
          true,
        );
        continue;
      }
      const call = await this.harness.fileCall(change, before?.get(change.path));
      await this.#toolUse(key, call.name, call.input);
      await this.#toolResult(key, call.content, false, call.result);
    }
  }

  async #todoList(item: CodexItemOf<'todo_list'>): Promise<void> {
    const id = item.id ?? '';
    const firstOpen = item.items.findIndex((t) => !t.completed);
    const todos = item.items.map((t, n) => ({
      content: t.text,
      status: t.completed ? 'completed' : n === firstOpen ? 'in_progress' : 'pending',
      activeForm: t.text,
    }));
    const key = JSON.stringify(todos);
    if (this.#todos.get(id) === key) return;
    this.#todos.set(id, key);
    const useKey = `${id}@todo${++this.#todoCalls}`;
    await this.#toolUse(useKey, 'TodoWrite', { todos });
    await this.#toolResult(useKey, todoWriteAnswer, false, { newTodos: todos });
  }

  async #mcpCall(phase: Phase, item: CodexItemOf<'mcp_tool_call'>): Promise<void> {
    const id = item.id ?? '';
    const name = `mcp__${item.server ?? 'unknown'}__${item.tool ?? 'unknown'}`;
    if (!(await this.#opened(phase, id, name, item.arguments ?? {})) || phase !== 'completed') return;
    const error = item.error?.message;
    const text = (item.result?.content ?? [])
      .map((b) => (b.type === 'text' ? (str(b.text) ?? '') : ''))
      .filter(Boolean)
      .join('\n');
    const isError = error !== undefined || item.status === 'failed';
    await this.#toolResult(
      id,
      isError ? `<tool_use_error>${error ?? 'the MCP tool call failed'}</tool_use_error>` : text,
      isError,
      item.result,
    );
  }
}
