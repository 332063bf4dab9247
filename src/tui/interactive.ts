/**
 * The interactive session: `agentpipe` with no prompt, stdin and stdout terminals. A prompt line (node:readline), the
 * answer streamed as it comes and rendered as Markdown (markdown.ts), Edit and Write diffs (diff-view.ts), tool calls
 * as lines (progress.ts), permission questions answered in the terminal (yes, no, always: always is saved as an allow
 * rule in the folder's .agentpipe/settings.local.json, as Claude Code saves to its local settings), Ctrl-C interrupts
 * a running turn and twice at the prompt leaves, and the commands /model, /clear, /resume, /cost, /help, /exit. A
 * projection of the same stream: the session is the library's query().
 */
import { errorMessage } from '../process/errors.ts';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline/promises';
import type { AgentMessage } from '../messages/types.ts';
import { query } from '../sdk/query.ts';
import { toolTitle } from '../sdk/tool-info.ts';
import type { ConnectOptions, PromptMessage, Query } from '../sdk/types.ts';
import type { SessionOptions } from '../session/options.ts';
import { ProgressView } from './progress.ts';
import { MarkdownStream } from './markdown.ts';
import { diffOfResult } from './diff-view.ts';

const HELP = [
  '/model [name]   show the model, or switch to another',
  '/cost           what this session cost so far',
  '/clear          start a new session',
  '/resume <id>    go on with a saved session (agentpipe sessions lists them)',
  '/help           this list',
  '/exit           leave (Ctrl-D too); Ctrl-C interrupts a running turn, twice at the prompt leaves',
].join('\n');

/** The prompts of one session, as the async iterable query() reads. */
class Prompts implements AsyncIterable<PromptMessage> {
  readonly #items: Array<PromptMessage | null> = [];
  #wake: (() => void) | undefined;

  push(text: string): void {
    this.#items.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null });
    this.#wake?.();
  }

  end(): void {
    this.#items.push(null);
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<PromptMessage> {
    for (;;) {
      const item = this.#items.shift();
      if (item === null) return;
      if (item) yield item;
      else await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}

/** A permission rule as settings spell it: `Bash(npm test:*)`, `Write`. */
function ruleOf(toolName: string, suggestions: unknown[]): string {
  for (const suggestion of suggestions as Array<{
    type?: string;
    rules?: Array<{ toolName: string; ruleContent?: string }>;
  }>) {
    const rule = suggestion.type === 'addRules' ? suggestion.rules?.[0] : undefined;
    if (rule) return rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName;
  }
  return toolName;
}

/** Adds `rule` to permissions.allow of `<cwd>/.agentpipe/settings.local.json` (kept as it was otherwise). */
function saveAllowRule(cwd: string, rule: string): string {
  const file = path.join(cwd, '.agentpipe', 'settings.local.json');
  let settings: { permissions?: { allow?: string[] } } & Record<string, unknown> = {};
  try {
    settings = JSON.parse(readFileSync(file, 'utf8')) as typeof settings;
  } catch {
    // No file yet (or not JSON: replaced by one that is).
  }
  const allow = new Set(settings.permissions?.allow ?? []);
  allow.add(rule);
  settings.permissions = { ...settings.permissions, allow: [...allow] };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  return file;
}

export class InteractiveSession {
  readonly #options: SessionOptions;
  readonly #connect: ConnectOptions | undefined;
  readonly #rl: readline.Interface;
  readonly #allowed = new Set<string>();
  #query: Query | undefined;
  #prompts: Prompts | undefined;
  #consuming: Promise<void> = Promise.resolve();
  #running = false;
  #leaving = false;
  #ctrlC = false;
  #model = '';
  #sessionId = '';
  #cost = 0;
  /** Text deltas came for the assistant message being read. */
  #streamed = false;
  /** The answer being streamed, as Markdown. */
  readonly #markdown = new MarkdownStream({ width: process.stdout.columns, colors: process.stdout.hasColors() });

  /** `connect`: the session runs on this `agentpipe serve` (`--connect`). */
  constructor(options: SessionOptions, connect?: ConnectOptions) {
    this.#options = options;
    this.#connect = connect;
    this.#rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    this.#rl.setPrompt('> ');
  }

  /** Runs until the user leaves; the exit code. */
  async run(): Promise<number> {
    this.#start({});
    this.#rl.on('SIGINT', () => this.#interrupt());
    const closed = new Promise<void>((resolve) => this.#rl.once('close', resolve));
    this.#rl.on('line', (line) => void this.#onLine(line.trim()));
    this.#rl.prompt();
    await closed;
    this.#prompts?.end();
    await this.#consuming;
    return 0;
  }

  #start(extra: Pick<SessionOptions, 'resume'>): void {
    const prompts = new Prompts();
    const progress = new ProgressView(this.#terminal(), Date.now, { statusLine: false });
    const q = query({
      prompt: prompts,
      options: {
        ...this.#options,
        ...extra,
        ...(this.#connect ? { connect: this.#connect } : {}),
        includePartialMessages: true,
        canUseTool: (n, i, o) => this.#ask(n, i, o),
      },
    });
    this.#prompts = prompts;
    this.#query = q;
    this.#consuming = this.#consume(q, progress).catch((error: unknown) => {
      this.#say(`error: ${errorMessage(error)}`);
      this.#running = false;
      if (!this.#leaving) this.#rl.prompt();
    });
  }

  /** stderr for the progress lines, after the answer's line is ended. */
  #terminal() {
    return {
      write: (text: string) => {
        this.#endLine();
        return process.stderr.write(text);
      },
      columns: process.stderr.columns,
      hasColors: () => process.stderr.hasColors(),
    };
  }

  async #consume(q: Query, progress: ProgressView): Promise<void> {
    for await (const message of q) {
      this.#show(message, progress);
      if (message.type !== 'result') continue;
      this.#endLine();
      progress.finish();
      this.#cost = message.total_cost_usd;
      this.#running = false;
      if (!this.#leaving) this.#rl.prompt();
    }
  }

  #show(message: AgentMessage, progress: ProgressView): void {
    if (message.type === 'system' && message.subtype === 'init' && message.session_id !== this.#sessionId) {
      this.#model = message.model;
      this.#sessionId = message.session_id;
      this.#say(`session ${message.session_id} · model ${message.model} · /help for commands`);
    }
    if (message.type === 'stream_event' && message.parent_tool_use_id === null) {
      const event = message.event as { type: string; delta?: { type: string; text?: string } };
      if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta' && event.delta.text) {
        process.stdout.write(this.#markdown.push(event.delta.text));
        this.#streamed = true;
      } else if (event.type === 'content_block_stop' || event.type === 'message_stop')
        process.stdout.write(this.#markdown.end());
      return;
    }
    if (message.type === 'result') process.stdout.write(this.#markdown.end());
    if (message.type === 'assistant' && message.parent_tool_use_id === null) {
      // A server that sends no deltas (serve without --include-partial-messages): the text of the whole message.
      if (!this.#streamed)
        for (const block of message.message.content)
          if (block.type === 'text') process.stdout.write(this.#markdown.push(`${block.text}\n\n`));
      this.#streamed = false;
    }
    progress.onMessage(message);
    // What an Edit or Write changed, under its line.
    if (message.type === 'user' && message.parent_tool_use_id === null && message.tool_use_result !== undefined) {
      const diff = diffOfResult(message.tool_use_result, process.stderr.hasColors());
      if (diff) this.#terminal().write(diff);
    }
  }

  async #onLine(line: string): Promise<void> {
    if (this.#running) return; // typed during a turn: the turn's questions read their own answers
    this.#ctrlC = false;
    const [command, ...rest] = line.split(/\s+/);
    switch (command) {
      case '':
        return this.#rl.prompt();
      case '/help':
        this.#say(HELP);
        return this.#rl.prompt();
      case '/exit':
        return this.#leave();
      case '/cost':
        this.#say(`$${this.#cost.toFixed(4)} in session ${this.#sessionId || '(none yet)'}`);
        return this.#rl.prompt();
      case '/model':
        if (rest[0]) {
          await this.#query?.setModel(rest[0]);
          this.#model = rest[0];
        }
        this.#say(`model: ${this.#model || this.#options.model || 'default'}`);
        return this.#rl.prompt();
      case '/clear':
      case '/resume': {
        if (command === '/resume' && this.#connect) {
          this.#say('/resume is not available on a remote session: the server chooses its sessions');
          return this.#rl.prompt();
        }
        if (command === '/resume' && !rest[0]) {
          this.#say('give the id: /resume <session id> (agentpipe sessions lists them)');
          return this.#rl.prompt();
        }
        this.#prompts?.end();
        this.#query?.close();
        await this.#consuming;
        this.#sessionId = '';
        this.#start(command === '/resume' ? { resume: rest[0] } : {});
        this.#say(command === '/resume' ? `resuming ${rest[0]}` : 'a new session');
        return this.#rl.prompt();
      }
      default:
        if (command!.startsWith('/')) {
          this.#say(`unknown command ${command}: /help lists them`);
          return this.#rl.prompt();
        }
        this.#running = true;
        this.#prompts?.push(line);
    }
  }

  /** A permission question in the terminal: yes, no, or always (saved to the folder's local settings). */
  async #ask(
    toolName: string,
    input: Record<string, unknown>,
    options: { signal: AbortSignal; suggestions: unknown[] },
  ): Promise<{ behavior: 'allow'; updatedInput: Record<string, unknown> } | { behavior: 'deny'; message: string }> {
    const rule = ruleOf(toolName, options.suggestions);
    if (this.#allowed.has(rule)) return { behavior: 'allow', updatedInput: input };
    this.#endLine();
    const question = `Allow ${toolTitle(toolName, input)}? [y]es, [n]o, [a]lways (${rule}): `;
    const answer = (await this.#rl.question(question, { signal: options.signal }).catch(() => 'n'))
      .trim()
      .toLowerCase();
    if (answer === 'a' || answer === 'always') {
      this.#allowed.add(rule);
      const file = saveAllowRule(this.#options.cwd ?? process.cwd(), rule);
      this.#say(`saved: ${rule} is allowed in ${path.relative(process.cwd(), file) || file}`);
      return { behavior: 'allow', updatedInput: input };
    }
    if (answer === 'y' || answer === 'yes') return { behavior: 'allow', updatedInput: input };
    return { behavior: 'deny', message: 'The user said no.' };
  }

  #interrupt(): void {
    if (this.#running) {
      this.#say('interrupting (Ctrl-C)');
      // The query has ended already: nothing is running to interrupt.
      void this.#query?.interrupt().catch(() => {});
      return;
    }
    if (this.#leaving) return;
    if (this.#rl.line === '' && this.#ctrlC) return this.#leave();
    this.#ctrlC = true;
    this.#say('(Ctrl-C again to leave, or /exit)');
    this.#rl.prompt();
  }

  #leave(): void {
    this.#leaving = true;
    this.#rl.close();
  }

  /** Before a line of ours: the answer's block read so far is printed first. */
  #endLine(): void {
    process.stdout.write(this.#markdown.end());
  }

  #say(text: string): void {
    this.#endLine();
    process.stdout.write(`${text}\n`);
  }
}
