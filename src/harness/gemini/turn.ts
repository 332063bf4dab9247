/** One Gemini CLI prompt's JSONL events translated into agentpipe's messages. */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AssistantMessage, StopReason } from '../../messages/types.ts';
import { INTERRUPTED_TOOLS } from '../../messages/notices.ts';
import { isArray, isRecord, str } from '../../process/guards.ts';
import { retry } from '../../process/retry.ts';
import { fileChangeResult, isFileCallName } from '../file-changes.ts';
import type { GeminiHarness } from '../gemini.ts';
import { GeminiEventSchema, type GeminiCounts, type GeminiEventOf } from '../gemini-events.ts';
import type { TurnState } from '../turn-state.ts';
import { readOrNull } from './process-tree.ts';
import { mapGeminiTool } from './tools.ts';

type Json = Record<string, unknown>;

/** An open tool call: what it was announced as, and the file before it ran (Edit/Write). */
interface OpenTool {
  name: string;
  input: Json;
  before?: string | null;
}
/** One prompt's translation. */
export class GeminiTurn {
  /** `success` or `error` once the `result` event came. */
  status: string | undefined;
  readonly errors: string[] = [];
  #model: string;
  #text = '';
  /** The message whose deltas are being streamed (its id is the final message's). */
  #streaming: AssistantMessage | undefined;
  readonly #open = new Map<string, OpenTool>();

  readonly harness: GeminiHarness;
  readonly state: TurnState;

  constructor(harness: GeminiHarness, state: TurnState) {
    this.harness = harness;
    this.state = state;
    this.#model = harness.config.model ?? 'gemini';
  }

  /** Translates one line of the CLI, parsed here into its declared event (gemini-events.ts). */
  async event(value: Json): Promise<void> {
    const s = this.state;
    const parsed = GeminiEventSchema.safeParse(value);
    if (!parsed.success) return s.unknown(`event type ${str(value.type) ?? '(no type)'}`);
    const e = parsed.data;
    switch (e.type) {
      case 'init': {
        const id = e.session_id;
        if (id) this.harness.session(id);
        const model = e.model;
        if (model && !this.harness.config.model) this.#model = model;
        await s.init({ nativeSessionId: id, model: this.harness.config.model ?? model, cwd: this.harness.config.cwd });
        return;
      }
      case 'message': {
        const role = e.role;
        const content = e.content ?? '';
        if (role === 'user') return; // the prompt's echo: the session records the prompt itself
        if (role !== 'assistant') return s.unknown(`message role ${role ?? '(none)'}`);
        if (e.delta !== true) await this.endText('end_turn');
        await this.#delta(content);
        if (e.delta !== true) await this.endText('end_turn');
        return;
      }
      case 'tool_use':
        return await this.#toolUse(e);
      case 'tool_result':
        return await this.#toolResult(e);
      case 'error': {
        const text = e.message ?? 'gemini reported an error';
        if (e.severity === 'warning') this.harness.config.warn(`harness gemini: ${text}`);
        else this.errors.push(text);
        return;
      }
      case 'result': {
        await this.endText('end_turn');
        this.status = e.status ?? 'error';
        if (e.error) this.errors.push(e.error.message ?? e.error.type ?? 'gemini reported an error');
        this.#usage(e.stats);
        return;
      }
    }
  }

  /** Adds the token counts of `stats` (per model when it has them). */
  #usage(stats: GeminiEventOf<'result'>['stats']): void {
    if (!stats) return;
    const add = (model: string, counts: GeminiCounts): void => {
      const input = counts.input_tokens ?? 0;
      const cached = counts.cached ?? 0;
      const output = counts.output_tokens ?? 0;
      if (!input && !output) return;
      // Gemini's input_tokens include the cached ones; the API's do not.
      const uncached = counts.input ?? Math.max(0, input - cached);
      this.state.turn.usage.add(model, {
        input_tokens: uncached,
        output_tokens: output,
        cache_read_input_tokens: cached,
      });
    };
    if (stats.models.length) for (const [model, counts] of stats.models) add(model, counts);
    else add(this.#model, stats);
  }

  async #delta(text: string): Promise<void> {
    if (!text) return;
    const s = this.state;
    this.#text += text;
    if (!s.config.includePartialMessages) return;
    if (!this.#streaming) {
      this.#streaming = s.assistant([], this.#model);
      await s.streamEvent({ type: 'message_start', message: { ...this.#streaming.message, content: [] } });
      await s.streamEvent({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '', citations: null },
      });
    }
    await s.streamEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
  }

  /** Ends the text being accumulated: its stream events, then one assistant message with all of it. */
  async endText(stopReason: StopReason): Promise<void> {
    const s = this.state;
    const text = this.#text;
    const streaming = this.#streaming;
    this.#text = '';
    this.#streaming = undefined;
    if (streaming) {
      await s.streamEvent({ type: 'content_block_stop', index: 0 });
      await s.streamEvent({ type: 'message_stop' });
    }
    if (!text) return;
    const final = streaming ?? s.assistant([], this.#model);
    final.message.content = [{ type: 'text', text, citations: null }];
    final.message.stop_reason = stopReason;
    await s.emit(final);
  }

  async #toolUse(e: GeminiEventOf<'tool_use'>): Promise<void> {
    const id = e.tool_id ?? `gemini_tool_${this.#open.size}`;
    const native = e.tool_name ?? 'unknown';
    const { name, input } = mapGeminiTool(native, e.parameters ?? {}, this.harness.config.cwd);
    const file = str(input.file_path);
    // The file before the call, read now: Gemini runs it right after printing this line.
    const open: OpenTool = {
      name,
      input,
      ...(isFileCallName(name) && file ? { before: readOrNull(file) } : {}),
    };
    this.#open.set(id, open);
    await this.endText('tool_use');
    await this.state.emit(this.state.assistant([{ type: 'tool_use', id, name, input }], this.#model, 'tool_use'));
  }

  async #toolResult(e: GeminiEventOf<'tool_result'>): Promise<void> {
    const id = e.tool_id ?? '';
    const open = this.#open.get(id);
    if (!open) return this.state.unknown('tool_result for an unknown tool_id');
    this.#open.delete(id);
    await this.endText('tool_use');
    const output = e.output ?? '';
    if (e.status === 'error') {
      const error = e.error?.message ?? (output || 'the tool call failed');
      await this.state.emit(
        this.state.toolResult(id, `<tool_use_error>${error}</tool_use_error>`, true, `Error: ${error}`),
      );
      return;
    }
    const { content, result } = await this.#resultOf(id, open, output);
    await this.state.emit(this.state.toolResult(id, content, false, result));
  }

  /** The text and `tool_use_result` of a successful call, in agentpipe's shapes where the tool is known. */
  async #resultOf(id: string, open: OpenTool, output: string): Promise<{ content: string; result?: unknown }> {
    const { name, input } = open;
    const file = str(input.file_path) ?? '';
    if (name === 'Bash')
      return { content: output, result: { stdout: output, stderr: '', interrupted: false, isImage: false } };
    if (!isFileCallName(name)) return { content: output };
    const after = await readFile(file, 'utf8').catch(() => null);
    let before = open.before;
    if (before === undefined || before === after) {
      // Gemini may have changed the file before it was read: its session recording has the original.
      const recorded = await this.#recorded(id);
      if (recorded) before = recorded.isNewFile ? null : recorded.originalContent;
    }
    const result = await fileChangeResult({ name, file, input }, before, after, output);
    const created = result !== undefined && 'type' in result && result.type === 'create';
    return {
      content: output || (created ? `File created successfully at: ${file}` : `The file ${file} has been updated.`),
      ...(result ? { result } : {}),
    };
  }

  /**
   * The file change of tool call `id` in Gemini's session recording (written right after the result line; waits up to 5
   * s on a loaded machine).
   */
  async #recorded(id: string): Promise<{ originalContent: string; isNewFile: boolean } | undefined> {
    const session = this.harness.nativeSessionId;
    if (!session) return undefined;
    const tmp = path.join(this.harness.geminiHome, '.gemini', 'tmp');
    return retry(
      async () => {
        for (const file of recordings(tmp, session)) {
          const text = await readFile(file, 'utf8').catch(() => '');
          for (const line of text.split('\n')) {
            if (!line.includes(id)) continue;
            const found = recordedChange(line, id);
            if (found) return found;
          }
        }
        return undefined;
      },
      { attempts: 100, delayMs: 50 },
    );
  }

  /** Ends the calls still open with an interruption result (each tool_use gets one result). */
  async closeOpen(): Promise<void> {
    for (const id of [...this.#open.keys()]) {
      this.#open.delete(id);
      await this.state.emit(this.state.toolResult(id, INTERRUPTED_TOOLS, true));
    }
  }
}

/** The recording files of `session` (`<tmp>/<project>/chats/session-*-<first 8 of the id>.jsonl`). */
function recordings(tmp: string, session: string): string[] {
  const suffix = `-${session.slice(0, 8)}.jsonl`;
  const files: string[] = [];
  let projects: string[] = [];
  try {
    projects = readdirSync(tmp);
  } catch {
    return files;
  }
  for (const project of projects) {
    const chats = path.join(tmp, project, 'chats');
    try {
      for (const name of readdirSync(chats)) if (name.endsWith(suffix)) files.push(path.join(chats, name));
    } catch {
      // not a project folder
    }
  }
  return files;
}

/**
 * `originalContent` of tool call `id` in one recording line (`{toolCalls: [{id, resultDisplay: {originalContent,
 * isNewFile}}]}`).
 */
function recordedChange(line: string, id: string): { originalContent: string; isNewFile: boolean } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !isArray(value.toolCalls)) return undefined;
  for (const call of value.toolCalls) {
    if (!isRecord(call) || call.id !== id || !isRecord(call.resultDisplay)) continue;
    const original = str(call.resultDisplay.originalContent);
    if (original !== undefined) return { originalContent: original, isNewFile: call.resultDisplay.isNewFile === true };
  }
  return undefined;
}
