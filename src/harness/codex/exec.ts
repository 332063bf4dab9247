/**
 * The Codex harness on `codex exec`, for a codex without an app-server (app-server.ts is the
 * harness otherwise): one `codex exec --json` process per prompt (`codex exec resume <thread>` after
 * the first), its JSONL events (codex-rs/exec/src/exec_events.rs) translated into the message union.
 * Commands become Bash calls, file changes Edit/Write calls with a diff-able `tool_use_result`, to-do
 * lists TodoWrite, MCP calls `mcp__<server>__<tool>`. Codex cannot ask for permission in exec mode
 * (its approval policy is always "never"), so permission modes choose its sandbox instead.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type {
  AssistantContentBlock,
  AssistantMessage,
  PermissionMode,
  UserContentBlock,
} from '../../messages/types.ts';
import { INTERRUPTED_TOOLS } from '../../messages/notices.ts';
import { newApiId } from '../../messages/ids.ts';
import { howItEnded } from '../cli-process.ts';
import { OneShotCliHarness } from '../one-shot.ts';
import { todoWriteAnswer } from '../../tools/builtin/todo-write.ts';
import { TurnState } from '../turn-state.ts';
import type { HarnessOutcome, HarnessTurn } from '../types.ts';
import { retry } from '../../process/retry.ts';
import { CodexExecEventSchema, CodexItemSchema, type CodexItem, type CodexItemOf } from './exec-events.ts';
import {
  commandResult,
  fileCallOf,
  providerOverrides,
  forwardUnifiedDiff,
  reverseUnifiedDiff,
  stderrOf,
  tomlString,
  PRIVATE_TEMP_OVERRIDES,
  unwrapShell,
  type CodexFileChange as Change,
  type FileCall,
} from './shared.ts';

/** Codex's sandbox per permission mode; exec mode never asks, so "default" cannot ask before edits and is read-only. */
export function codexPermissionArgs(mode: PermissionMode): string[] {
  switch (mode) {
    case 'bypassPermissions':
      return ['--dangerously-bypass-approvals-and-sandbox'];
    case 'acceptEdits':
      return ['--sandbox', 'workspace-write'];
    case 'default':
    case 'plan':
    case 'dontAsk':
      return ['--sandbox', 'read-only'];
  }
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Finds codex's session log (rollout) of a thread, to read the diffs its exec events leave out. */
function findRollout(codexHome: string, threadId: string): string | undefined {
  const walk = (dir: string, depth: number): string | undefined => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const entry of entries.sort((x, y) => y.name.localeCompare(x.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isFile() && entry.name.endsWith(`${threadId}.jsonl`)) return full;
      if (entry.isDirectory() && depth > 0) {
        const found = walk(full, depth - 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(path.join(codexHome, 'sessions'), 3);
}

/** One file's change as codex's rollout records it: an added file's text, or an update's unified diff. */
interface RecordedChange {
  key: string;
  type: 'add' | 'update';
  text: string;
}

/** The change of `file` in one rollout line (a completed FileChange item), if it holds one. */
function recordedChange(line: string, file: string): RecordedChange[] {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return [];
  }
  const payload = isObj(value) && isObj(value.payload) ? value.payload : undefined;
  const item = payload?.type === 'item_completed' && isObj(payload.item) ? payload.item : undefined;
  const changes = item && isObj(item.changes) ? item.changes : undefined;
  const entry = changes && isObj(changes[file]) ? changes[file] : undefined;
  if (!entry) return [];
  // The line itself names the change: it is unique (its timestamp), where a call id may come again in a later turn.
  const key = `${line}\0${file}`;
  const add = entry.type === 'add' ? str(entry.content) : undefined;
  if (add !== undefined) return [{ key, type: 'add', text: add }];
  const diff = str(entry.unified_diff);
  return diff === undefined ? [] : [{ key, type: 'update', text: diff }];
}

/** The file before `later` changes (its text now, unwound through their diffs); undefined when one does not fit. */
function unwind(now: string, later: RecordedChange[]): string | undefined {
  let text: string | undefined = now;
  for (const change of [...later].reverse())
    text = change.type === 'update' && text !== undefined ? reverseUnifiedDiff(text, change.text) : undefined;
  return text;
}

/** A wrapped `codex exec` (a codex without an app-server): see the module comment. */
export class CodexExecHarness extends OneShotCliHarness {
  readonly name = 'codex' as const;
  #warned = false;
  /** File contents after codex's last change to them (the before-text of its next change). */
  readonly #known = new Map<string, string>();
  /** Rollout file changes already matched to an exec event. */
  readonly #usedRecords = new Set<string>();

  get #model(): string {
    return this.config.model ?? 'codex';
  }

  get #codexHome(): string {
    return this.config.env.CODEX_HOME ?? path.join(this.config.env.HOME ?? os.homedir(), '.codex');
  }

  /** Warns once per harness about the options codex cannot honour. */
  #warnUnsupported(): void {
    if (this.#warned) return;
    this.#warned = true;
    const c = this.config;
    const ignored = [
      c.allowedTools.length ? 'allowedTools' : '',
      c.disallowedTools.length ? 'disallowedTools' : '',
      c.maxTurns !== undefined ? 'maxTurns' : '',
    ].filter(Boolean);
    if (ignored.length)
      this.config.warn(`harness codex: ignored options codex exec cannot honour: ${ignored.join(', ')}`);
  }

  /** The argv of one prompt. */
  argv(prompt: string, images: string[]): string[] {
    const c = this.config;
    const overrides = providerOverrides(c.baseUrl, c.env);
    const set = (key: string, value: string) => overrides.push('-c', `${key}=${value}`);
    if (c.systemPrompt !== undefined) {
      const file = path.join(this.temp(), 'instructions.md');
      writeFileSync(file, c.systemPrompt);
      set('model_instructions_file', tomlString(file));
    }
    if (c.appendSystemPrompt) set('developer_instructions', tomlString(c.appendSystemPrompt));
    // Values in `--flag=value` form, and the session id with the prompt after `--`: a model name or a resumed id
    // starting with `--` (`--last` would resume another session) stays a value.
    return [
      ...c.command,
      'exec',
      '--json',
      '--skip-git-repo-check',
      `--cd=${c.cwd}`,
      ...codexPermissionArgs(c.permissionMode),
      ...(c.model ? [`--model=${c.model}`] : []),
      ...PRIVATE_TEMP_OVERRIDES,
      ...overrides,
      ...(this.nativeId ? ['resume'] : []),
      ...images.map((file) => `--image=${file}`),
      '--',
      ...(this.nativeId ? [this.nativeId] : []),
      prompt,
    ];
  }

  /** The prompt's text, its images written to files for `--image`. */
  #prompt(prompt: string | UserContentBlock[]): { text: string; images: string[] } {
    if (typeof prompt === 'string') return { text: prompt, images: [] };
    const texts: string[] = [];
    const images: string[] = [];
    for (const block of prompt) {
      if (block.type === 'text') texts.push(block.text);
      else if (block.type === 'image' && block.source.type === 'base64') {
        const ext = block.source.media_type.split('/')[1] ?? 'png';
        const file = path.join(this.temp(), `image-${images.length}-${Date.now()}.${ext}`);
        writeFileSync(file, Buffer.from(block.source.data, 'base64'));
        images.push(file);
      } else this.config.warn(`harness codex: a ${block.type} block of the prompt was left out`);
    }
    return { text: texts.join('\n\n'), images };
  }

  protected async runPrompt(state: TurnState, turn: HarnessTurn): Promise<HarnessOutcome> {
    this.#warnUnsupported();
    if (turn.signal.aborted) return await state.interrupted();
    const { text, images } = this.#prompt(turn.prompt);
    const t = new CodexTurn(this, state);
    const exit = await this.runProcess(turn, {
      argv: this.argv(text, images),
      env: this.config.env,
      onEvent: (value) => t.event(value),
      onGarbage: (line) => state.unknown('non-JSON line', line),
    });
    if (!exit) {
      await t.closeOpen();
      return await state.interrupted();
    }
    await t.closeOpen();
    if (t.completed) return state.success();
    if (t.failed) return state.failure([t.failed]);
    const tail = stderrOf(exit.stderr);
    const errors = [`codex ${howItEnded(exit)} before its turn completed${tail ? `: ${tail}` : ''}`];
    if (t.lastError) errors.push(t.lastError);
    return state.failure(errors);
  }

  /** Called with each thread id codex reports. */
  thread(id: string): void {
    this.nativeId = id;
  }

  /**
   * The Edit or Write call (input, result, content) of one completed change, with what is known of the file before it.
   * Its text comes from codex's rollout, not the disk: codex may have applied its next changes by the time this event
   * is read (the disk is then unwound through them).
   */
  async fileCall(change: Change, before: string | undefined): Promise<FileCall> {
    const file = change.path;
    if (change.kind === 'delete') {
      this.#known.delete(file);
      return fileCallOf(change, undefined, '');
    }
    const disk = (await readFile(file, 'utf8').catch(() => null)) ?? '';
    const [recorded, ...later] = await this.#recorded(file);
    const known = this.#known.get(file);
    let after: string | undefined;
    if (recorded?.type === 'add') after = recorded.text;
    else if (recorded && known !== undefined) after = forwardUnifiedDiff(known, recorded.text);
    after ??= unwind(disk, later) ?? disk;
    this.#known.set(file, after);
    let original = known ?? (before !== undefined && before !== after ? before : undefined);
    if (change.kind === 'update' && original === undefined && recorded?.type === 'update')
      original = reverseUnifiedDiff(after, recorded.text);
    return fileCallOf(change, original, after);
  }

  /**
   * The changes of `file` codex's rollout records and no earlier event took, oldest first: the first is this event's.
   * Polled briefly while codex writes it.
   */
  async #recorded(file: string): Promise<RecordedChange[]> {
    if (!this.nativeId) return [];
    const nativeId = this.nativeId;
    const found = await retry(
      async () => {
        const rollout = findRollout(this.#codexHome, nativeId);
        const text = rollout ? await readFile(rollout, 'utf8').catch(() => '') : '';
        const changes = text
          .split('\n')
          .filter((line) => line.includes('"FileChange"'))
          .flatMap((line) => recordedChange(line, file))
          .filter((c) => !this.#usedRecords.has(c.key));
        return changes.length ? changes : undefined;
      },
      { attempts: 6, delayMs: 50 },
    );
    if (found?.[0]) this.#usedRecords.add(found[0].key);
    return found ?? [];
  }

  get model(): string {
    return this.#model;
  }
}

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
class CodexTurn {
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
