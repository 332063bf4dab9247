/**
 * The Gemini CLI harness: one `gemini --output-format stream-json` process per prompt (`--resume
 * <session>` after the first), its JSONL events (packages/core/src/output/types.ts: init, message,
 * tool_use, tool_result, error, result) translated into the message union. Gemini's tools become
 * Bash/Edit/Write/Read/Glob/Grep/WebFetch calls in agentpipe's input shapes; its file edits get a
 * diff-able `tool_use_result`. Headless Gemini cannot ask for permission (tools that need approval
 * are not offered to the model), so permission modes choose its approval mode.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AssistantMessage, PermissionMode, StopReason, UserContentBlock } from '../messages/types.ts';
import { INTERRUPTED_TOOLS } from '../messages/notices.ts';
import { editResultOf, reverseEdit, writeResultOf } from '../tools/file-patch.ts';
import { GeminiEventSchema, type GeminiCounts, type GeminiEventOf } from './gemini-events.ts';
import { howItEnded, stderrTail, type CliProcess } from './cli-process.ts';
import { OneShotCliHarness } from './one-shot.ts';
import { TurnState } from './turn-state.ts';
import type { HarnessOutcome, HarnessTurn } from './types.ts';
import { retry } from '../process/retry.ts';

/** Gemini's `--approval-mode` per permission mode (headless: tools needing approval are withheld, as with dontAsk). */
export function geminiApprovalMode(mode: PermissionMode): 'default' | 'auto_edit' | 'yolo' | 'plan' {
  switch (mode) {
    case 'bypassPermissions':
      return 'yolo';
    case 'acceptEdits':
      return 'auto_edit';
    case 'plan':
      return 'plan';
    case 'default':
    case 'dontAsk':
      return 'default';
  }
}

/** agentpipe's tool names → Gemini's. */
const GEMINI_TOOLS: Record<string, string> = {
  Bash: 'run_shell_command',
  Write: 'write_file',
  Edit: 'replace',
  Read: 'read_file',
  Glob: 'glob',
  Grep: 'grep_search',
  LS: 'list_directory',
  WebFetch: 'web_fetch',
  WebSearch: 'google_web_search',
};

/**
 * An allowed-tools rule in Gemini's spelling: `Bash(git diff:*)` → `run_shell_command(git diff)`; unknown names as they
 * are.
 */
export function geminiToolRule(rule: string): string {
  const match = /^(\w+)(?:\((.*)\))?$/.exec(rule.trim());
  if (!match) return rule;
  const name = GEMINI_TOOLS[match[1]!] ?? match[1]!;
  const arg = match[2]?.replace(/:\*$/, '').replace(/\s*\*$/, '');
  return arg ? `${name}(${arg})` : name;
}

type Json = Record<string, unknown>;
/** Terminal colour codes (Gemini colours some of its fatal messages). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const readOrNull = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** A Gemini tool call as agentpipe's tool: its name and input. */
export function mapGeminiTool(name: string, args: Json, cwd: string): { name: string; input: Json } {
  const file = str(args.file_path) ?? str(args.absolute_path) ?? str(args.path);
  const abs = (p: string): string => path.resolve(cwd, p);
  const dir = str(args.dir_path) ?? str(args.path) ?? str(args.directory);
  const opt = (key: string, value: unknown): Json => (value === undefined ? {} : { [key]: value });
  switch (name) {
    case 'run_shell_command':
      return {
        name: 'Bash',
        input: { command: str(args.command) ?? '', ...opt('description', str(args.description)) },
      };
    case 'write_file':
      return { name: 'Write', input: { file_path: abs(file ?? ''), content: str(args.content) ?? '' } };
    case 'replace': {
      const many = args.allow_multiple === true || (num(args.expected_replacements) ?? 1) > 1;
      return {
        name: 'Edit',
        input: {
          file_path: abs(file ?? ''),
          old_string: str(args.old_string) ?? '',
          new_string: str(args.new_string) ?? '',
          ...(many ? { replace_all: true } : {}),
        },
      };
    }
    case 'read_file':
      return {
        name: 'Read',
        input: { file_path: abs(file ?? ''), ...opt('offset', num(args.offset)), ...opt('limit', num(args.limit)) },
      };
    case 'glob':
      return { name: 'Glob', input: { pattern: str(args.pattern) ?? '', ...opt('path', dir) } };
    case 'grep_search':
    case 'search_file_content':
    case 'grep':
      return {
        name: 'Grep',
        input: { pattern: str(args.pattern) ?? '', ...opt('path', dir), ...opt('glob', str(args.include)) },
      };
    case 'list_directory':
      return { name: 'LS', input: { path: abs(dir ?? '.') } };
    case 'web_fetch': {
      const prompt = str(args.prompt) ?? '';
      return { name: 'WebFetch', input: { url: str(args.url) ?? /https?:\/\/\S+/.exec(prompt)?.[0] ?? '', prompt } };
    }
    case 'google_web_search':
      return { name: 'WebSearch', input: { query: str(args.query) ?? '' } };
    default:
      return { name, input: args };
  }
}

/** An open tool call: what it was announced as, and the file before it ran (Edit/Write). */
interface OpenTool {
  name: string;
  input: Json;
  before?: string | null;
}

/** The Gemini CLI behind agentpipe's stream: one `gemini -p` process per prompt, resumed by its session id. */
export class GeminiHarness extends OneShotCliHarness {
  readonly name = 'gemini' as const;
  #warned = false;

  /**
   * Stops the CLI and the commands it runs: Gemini starts each shell command in a process group of
   * its own, which outlives it when it is killed; those groups get SIGTERM, then SIGKILL.
   */
  protected override async stop(proc: CliProcess): Promise<void> {
    const own = proc.pid;
    const groups =
      own === undefined || proc.exited
        ? []
        : [...new Set(descendants(own).map((d) => d.pgid))].filter((g) => g !== own && g > 1);
    const signal = (name: NodeJS.Signals) => {
      for (const group of groups) {
        try {
          process.kill(-group, name);
        } catch {
          // gone already
        }
      }
    };
    signal('SIGTERM');
    proc.stop();
    await proc.done;
    signal('SIGKILL');
  }

  /** Warns once per harness about the options Gemini cannot honour. */
  #warnUnsupported(): void {
    if (this.#warned) return;
    this.#warned = true;
    const c = this.config;
    const ignored = [
      c.maxTurns !== undefined ? 'maxTurns (only model.maxSessionTurns in its settings.json)' : '',
      c.appendSystemPrompt && c.systemPrompt === undefined
        ? 'appendSystemPrompt (GEMINI_SYSTEM_MD replaces its whole system prompt)'
        : '',
    ].filter(Boolean);
    if (ignored.length) c.warn(`harness gemini: ignored options gemini cannot honour: ${ignored.join(', ')}`);
  }

  /** The argv of one prompt. */
  argv(prompt: string): string[] {
    const c = this.config;
    const allowed = c.allowedTools.map(geminiToolRule);
    const policy = c.disallowedTools.length ? [`--policy=${this.#denyPolicy()}`] : [];
    // `--flag=value` throughout: a model name or a resumed session id starting with `--` stays a value (issue 27).
    return [
      ...c.command,
      '--output-format=stream-json',
      `--approval-mode=${geminiApprovalMode(c.permissionMode)}`,
      ...(c.model ? [`--model=${c.model}`] : []),
      ...(this.nativeId ? [`--resume=${this.nativeId}`] : []),
      ...(allowed.length ? [`--allowed-tools=${allowed.join(',')}`] : []),
      ...policy,
      `--prompt=${prompt}`,
    ];
  }

  /** A policy file denying the disallowed tools (Gemini's policy engine; `--policy`). */
  #denyPolicy(): string {
    const rules = this.config.disallowedTools.map((rule) => {
      const match = /^(\w+)(?:\((.*)\))?$/.exec(rule.trim());
      const name = match ? (GEMINI_TOOLS[match[1]!] ?? match[1]!) : rule;
      const prefix = match?.[2]?.replace(/:\*$/, '').replace(/\s*\*$/, '');
      const prefixLine = prefix && name === 'run_shell_command' ? `commandPrefix = ${JSON.stringify(prefix)}\n` : '';
      return `[[rule]]\ntoolName = ${JSON.stringify(name)}\n${prefixLine}decision = "deny"\npriority = 999\n`;
    });
    const file = path.join(this.temp(), 'disallowed-tools.toml');
    writeFileSync(file, rules.join('\n'));
    return file;
  }

  /** The CLI's environment: the base URL, the system prompt file, no relaunch (one process to stop). */
  #env(): Record<string, string> {
    const c = this.config;
    const env: Record<string, string> = { GEMINI_CLI_NO_RELAUNCH: 'true', ...c.env };
    if (c.baseUrl) env.GOOGLE_GEMINI_BASE_URL = c.baseUrl;
    // Gemini takes a base URL for its `gateway` auth, which `-p` refuses ("Invalid auth method selected"; with no
    // base URL it picks the API key itself): the key's auth as the lowest layer of its settings, its system defaults,
    // so an auth the user's own settings select still wins. The file is in Gemini's own home: it reads system files
    // only under folders no one else may write (never the temp folder), and its home is what its sandbox lets it read.
    if (env.GEMINI_API_KEY && !env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH) {
      const folder = path.join(this.geminiHome, '.gemini');
      const file = path.join(folder, 'agentpipe-system-defaults.json');
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(file, JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }), { mode: 0o600 });
      env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH = file;
    }
    if (c.systemPrompt !== undefined) {
      const file = path.join(this.temp(), 'system.md');
      writeFileSync(file, c.appendSystemPrompt ? `${c.systemPrompt}\n\n${c.appendSystemPrompt}` : c.systemPrompt);
      env.GEMINI_SYSTEM_MD = file;
    }
    return env;
  }

  /** The prompt's text (Gemini takes no images on the command line). */
  #prompt(prompt: string | UserContentBlock[]): string {
    if (typeof prompt === 'string') return prompt;
    const texts: string[] = [];
    for (const block of prompt) {
      if (block.type === 'text') texts.push(block.text);
      else
        this.config.warn(
          `harness gemini: a ${block.type} block of the prompt was left out (gemini -p takes text only)`,
        );
    }
    return texts.join('\n\n');
  }

  protected async runPrompt(state: TurnState, turn: HarnessTurn): Promise<HarnessOutcome> {
    this.#warnUnsupported();
    if (turn.signal.aborted) return await state.interrupted();
    const t = new GeminiTurn(this, state);
    const exit = await this.runProcess(turn, {
      argv: this.argv(this.#prompt(turn.prompt)),
      env: this.#env(),
      onEvent: (value) => t.event(value),
      onGarbage: (text) => state.unknown('non-JSON line', text),
    });
    if (!exit) {
      await t.endText('end_turn');
      await t.closeOpen();
      return await state.interrupted();
    }
    await t.endText('end_turn');
    await t.closeOpen();
    if (t.status === 'success' && !t.errors.length) return state.success();
    if (t.status !== undefined) return state.failure(t.errors.length ? t.errors : ['gemini reported an error']);
    const tail = stderrTail(
      exit.stderr
        .replace(ANSI, '')
        .split('\n')
        .filter((l) => !/^\s+at /.test(l))
        .join('\n'),
    );
    return state.failure([`gemini ${howItEnded(exit)} before its result${tail ? `: ${tail}` : ''}`, ...t.errors]);
  }

  /** Called with the session id Gemini reports. */
  session(id: string): void {
    this.nativeId = id;
  }

  /** Gemini's home folder (its session recordings are under `.gemini/tmp/<project>/chats`). */
  get geminiHome(): string {
    return this.config.env.GEMINI_CLI_HOME ?? this.config.env.HOME ?? os.homedir();
  }
}

/** One prompt's translation. */
class GeminiTurn {
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
      ...((name === 'Edit' || name === 'Write') && file ? { before: readOrNull(file) } : {}),
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
    if (name !== 'Edit' && name !== 'Write') return { content: output };
    const after = (await readFile(file, 'utf8').catch(() => null)) ?? '';
    let before = open.before;
    if (before === undefined || before === after) {
      // Gemini may have changed the file before it was read: its session recording has the original.
      const recorded = await this.#recorded(id);
      if (recorded) before = recorded.isNewFile ? null : recorded.originalContent;
      else if (name === 'Edit')
        before = reverseEdit(after, str(input.old_string) ?? '', str(input.new_string) ?? '') ?? before;
    }
    const original = before ?? null;
    if (name === 'Write') {
      const result = await writeResultOf(file, original, after);
      return {
        content:
          output ||
          (original === null ? `File created successfully at: ${file}` : `The file ${file} has been updated.`),
        result,
      };
    }
    const oldString = str(input.old_string) ?? '';
    const newString = str(input.new_string) ?? '';
    return {
      content: output || `The file ${file} has been updated.`,
      result: await editResultOf(file, oldString, newString, original ?? '', after, input.replace_all === true),
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

/** The processes under `root` (pid and process group), from /proc, else from `ps`. */
function descendants(root: number): { pid: number; pgid: number }[] {
  const table: { pid: number; ppid: number; pgid: number }[] = [];
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const stat = readOrNull(`/proc/${name}/stat`);
      const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields && fields.length > 3)
        table.push({ pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]) });
    }
  } catch {
    try {
      for (const line of execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' }).split('\n')) {
        const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
        if (pid && ppid !== undefined && pgid) table.push({ pid, ppid, pgid });
      }
    } catch {
      return [];
    }
  }
  const found: { pid: number; pgid: number }[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push({ pid: p.pid, pgid: p.pgid });
        grew = true;
      }
    }
  }
  return found;
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
  if (!isObj(value) || !Array.isArray(value.toolCalls)) return undefined;
  for (const call of value.toolCalls as unknown[]) {
    if (!isObj(call) || call.id !== id || !isObj(call.resultDisplay)) continue;
    const original = str(call.resultDisplay.originalContent);
    if (original !== undefined) return { originalContent: original, isNewFile: call.resultDisplay.isNewFile === true };
  }
  return undefined;
}
