/**
 * The `codex exec --json` output format: agentpipe's stream → the JSON lines codex exec prints
 * (`thread.started`, `turn.started`, `item.started|updated|completed`, `turn.completed` with the
 * usage, `error` + `turn.failed`), through the shared item projection. Items are numbered
 * `item_0`, `item_1`… as codex numbers them; as in codex exec, texts come whole (no deltas), a
 * command and a file change open with `item.started`, and the plan is one
 * `todo_list` item started by the first TodoWrite, updated by the next ones, completed at the end of
 * the turn. Without `--json` it prints the final message on stdout and a short log on stderr.
 */
import type { OutputFormat, OutputLine } from '../../pipeline/format/types.ts';
import type { ResultMessage } from '../../messages/types.ts';
import type { ExecThreadEvent, ExecThreadItem } from '../../messages/codex/exec-events.ts';
import { codexUsage, failureOf, type CodexItem, type ItemEvent, type PlanStep } from '../items.ts';
import { CodexItemProjector } from '../projector.ts';

export class CodexExecFormat implements OutputFormat {
  readonly #json: boolean;
  readonly #log: (line: string) => void;
  readonly #projector: CodexItemProjector;
  readonly #ids = new Map<string, string>();
  #next = 0;
  #threadStarted = false;
  #turnOpen = false;
  #todo?: { id: string; steps: PlanStep[] };
  /** The last agent message (the final answer without `--json`, and `--output-last-message`). */
  lastMessage = '';
  /** The last result. */
  result?: ResultMessage;

  constructor(o: { json: boolean; cwd: string; log: (line: string) => void }) {
    this.#json = o.json;
    this.#log = o.log;
    this.#projector = new CodexItemProjector({ cwd: o.cwd });
  }

  line(line: OutputLine): string | undefined {
    const events: ExecThreadEvent[] = [];
    if (line.type === 'system' && line.subtype === 'init') this.#start(line.session_id, events);
    if (line.type === 'result') {
      this.#start(line.session_id, events);
      this.#end(line, events);
    } else if (
      line.type === 'assistant' ||
      line.type === 'user' ||
      line.type === 'system' ||
      line.type === 'stream_event'
    )
      for (const event of this.#projector.push(line)) this.#event(event, events);
    else if (line.type === 'tool_progress') this.#projector.push(line);
    return this.#render(events);
  }

  end(): string | undefined {
    if (this.#json) return undefined;
    return this.lastMessage ? `${this.lastMessage}\n` : undefined;
  }

  #render(events: ExecThreadEvent[]): string | undefined {
    if (!events.length) return undefined;
    if (!this.#json) {
      for (const event of events) this.#human(event);
      return undefined;
    }
    return events.map((e) => `${JSON.stringify(e)}\n`).join('');
  }

  /** `thread.started` once, `turn.started` for each turn. */
  #start(threadId: string, events: ExecThreadEvent[]): void {
    if (!this.#threadStarted) {
      this.#threadStarted = true;
      events.push({ type: 'thread.started', thread_id: threadId });
    }
    if (!this.#turnOpen) {
      this.#turnOpen = true;
      events.push({ type: 'turn.started' });
    }
  }

  #end(result: ResultMessage, events: ExecThreadEvent[]): void {
    this.result = result;
    for (const event of this.#projector.finish()) this.#event(event, events);
    if (this.#todo) {
      events.push({ type: 'item.completed', item: this.#todoItem(this.#todo) });
      this.#todo = undefined;
    }
    this.#turnOpen = false;
    const failure = failureOf(result);
    if (failure !== undefined) {
      events.push({ type: 'error', message: failure });
      events.push({ type: 'turn.failed', error: { message: failure } });
      return;
    }
    const u = result.usage;
    events.push({
      type: 'turn.completed',
      usage: codexUsage({
        input_tokens: u.input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        output_tokens: u.output_tokens,
        thinking_tokens: u.output_tokens_details?.thinking_tokens ?? 0,
      }),
    });
  }

  #id(itemId: string): string {
    let id = this.#ids.get(itemId);
    if (!id) this.#ids.set(itemId, (id = `item_${this.#next++}`));
    return id;
  }

  #event(event: ItemEvent, events: ExecThreadEvent[]): void {
    switch (event.type) {
      case 'started': {
        const item = this.#item(event.item, false);
        if (item) events.push({ type: 'item.started', item });
        return;
      }
      case 'completed': {
        const item = this.#item(event.item, true);
        if (item) events.push({ type: 'item.completed', item });
        if (event.item.kind === 'agentMessage') this.lastMessage = event.item.text;
        return;
      }
      case 'plan': {
        const first = !this.#todo;
        this.#todo = { id: this.#todo?.id ?? `item_${this.#next++}`, steps: event.steps };
        events.push({ type: first ? 'item.started' : 'item.updated', item: this.#todoItem(this.#todo) });
        return;
      }
      case 'retry':
        events.push({ type: 'error', message: event.message });
        return;
      default:
        return; // deltas, diffs and per-request usage are not part of codex exec's output
    }
  }

  #todoItem(todo: { id: string; steps: PlanStep[] }): ExecThreadItem {
    return {
      id: todo.id,
      type: 'todo_list',
      items: todo.steps.map((s) => ({ text: s.step, completed: s.status === 'completed' })),
    };
  }

  /** An item as codex exec prints it; undefined for what exec does not show at this point. */
  #item(item: CodexItem, done: boolean): ExecThreadItem | undefined {
    switch (item.kind) {
      case 'userMessage':
        return undefined;
      case 'agentMessage':
        return done ? { id: this.#id(item.id), type: 'agent_message', text: item.text } : undefined;
      case 'reasoning':
        return done ? { id: this.#id(item.id), type: 'reasoning', text: item.text } : undefined;
      case 'commandExecution':
        return {
          id: this.#id(item.id),
          type: 'command_execution',
          command: item.command,
          aggregated_output: item.output,
          exit_code: item.exitCode,
          status: item.status === 'inProgress' ? 'in_progress' : item.status,
        };
      case 'fileChange':
        return {
          id: this.#id(item.id),
          type: 'file_change',
          changes: item.changes.map((c) => ({ path: c.path, kind: c.kind })),
          status: item.status === 'inProgress' ? 'in_progress' : item.status === 'completed' ? 'completed' : 'failed',
        };
      case 'mcpToolCall':
        return {
          id: this.#id(item.id),
          type: 'mcp_tool_call',
          server: item.server,
          tool: item.tool,
          arguments: item.arguments,
          result: item.result
            ? { content: item.result.content, structured_content: item.result.structuredContent }
            : null,
          error: item.error !== null ? { message: item.error } : null,
          status: item.status === 'inProgress' ? 'in_progress' : item.status === 'completed' ? 'completed' : 'failed',
        };
      case 'webSearch':
        return {
          id: this.#id(item.id),
          type: 'web_search',
          query: item.query,
          action: { type: 'search', query: item.query },
        };
    }
  }

  /** Without `--json`: a short log on stderr, as codex prints its progress there. */
  #human(event: ExecThreadEvent): void {
    if (event.type === 'error') return this.#log(`ERROR: ${event.message}`);
    if (event.type !== 'item.completed' && event.type !== 'item.started') return;
    const item = event.item;
    if (item.type === 'command_execution' && event.type === 'item.started') this.#log(`exec\n${item.command}`);
    if (item.type === 'command_execution' && event.type === 'item.completed')
      this.#log(
        `${item.status === 'completed' ? 'succeeded' : `exited ${item.exit_code ?? '?'}`}:\n${item.aggregated_output}`,
      );
    if (item.type === 'file_change')
      this.#log(`file update:\n${item.changes.map((c) => `${c.kind} ${c.path}`).join('\n')}`);
    if (item.type === 'reasoning') this.#log(`thinking\n${item.text}`);
    if (item.type === 'mcp_tool_call' && event.type === 'item.started') this.#log(`tool ${item.server}.${item.tool}`);
  }
}
