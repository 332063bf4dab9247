/**
 * Live progress of a `-p` text run for a person at a terminal, on stderr: a status line with the current step (it is
 * rewritten in place), one line per finished tool call with its status and duration, permission denials with their
 * hint, MCP servers that failed, retries and model fallbacks, and the time, turns and cost at the end. A projection of
 * the same stream the JSON formats print; loaded only when stdout and stderr are terminals (cli/main.ts), so a run
 * into a pipe never loads it. Colours follow the terminal (`NO_COLOR`, `FORCE_COLOR`, `TERM`: Node's `hasColors`).
 */
import { styleText } from 'node:util';
import type { AssistantContentBlock, ToolResultBlock, UserContentBlock } from '../messages/api.ts';
import type { AgentMessage } from '../messages/types.ts';
import { toolTitle } from '../sdk/tool-info.ts';

type Style = Parameters<typeof styleText>[0];

/** Where the lines go: a terminal's stream (stderr). */
export interface ProgressStream {
  write(text: string): unknown;
  columns?: number;
  hasColors?(): boolean;
}

interface RunningTool {
  title: string;
  announced?: boolean;
  started: number;
  nested: boolean;
}

/** Renders the stream's messages as progress lines on `stream`; `now` is the clock (ms). */
export class ProgressView {
  readonly #stream: ProgressStream;
  readonly #now: () => number;
  readonly #colors: boolean;
  readonly #tools = new Map<string, RunningTool>();
  readonly #denied = new Set<string>();
  #status = '';
  #summary: { text: string; failed: boolean } | undefined;

  readonly #statusLine: boolean;

  /** `statusLine: false`: finished lines only (the interactive session streams the answer on the same terminal). */
  constructor(stream: ProgressStream, now: () => number = Date.now, options: { statusLine?: boolean } = {}) {
    this.#stream = stream;
    this.#now = now;
    this.#statusLine = options.statusLine !== false;
    this.#colors = stream.hasColors?.() ?? false;
  }

  /** Takes one message of the stream (anything else on the output queue is ignored). */
  onMessage(message: AgentMessage): void {
    switch (message.type) {
      case 'system':
        return this.#system(message);
      case 'assistant':
        return this.#assistant(message.message.content, message.parent_tool_use_id !== null);
      case 'user':
        return this.#toolResults(message.message.content);
      case 'tool_progress': {
        const tool = this.#tools.get(message.tool_use_id);
        if (!tool) return;
        if (this.#statusLine) return this.#setStatus(`${tool.title} (${message.elapsed_time_seconds.toFixed(0)} s)`);
        // Without a status line, a tool that runs past a second says so once.
        if (!tool.announced) this.#line(`${tool.nested ? '  ' : ''}… ${tool.title} running`, 'dim');
        tool.announced = true;
        return;
      }
      case 'result': {
        // Said after the answer (finish()): the time, the turns and the cost.
        const time = `${(message.duration_ms / 1000).toFixed(1)} s`;
        const turns = `${message.num_turns} turn${message.num_turns === 1 ? '' : 's'}`;
        const cost = `$${message.total_cost_usd.toFixed(4)}`;
        this.#summary = {
          text: `${message.is_error ? 'failed' : 'done'} in ${time} · ${turns} · ${cost}`,
          failed: message.is_error,
        };
        return this.clear();
      }
      default:
        return;
    }
  }

  /** Once the answer is out: clears the status line and says how the last prompt ended. */
  finish(): void {
    this.clear();
    if (this.#summary) this.#stream.write(`${this.#paint(this.#summary.text, this.#summary.failed ? 'red' : 'dim')}\n`);
    this.#summary = undefined;
  }

  /** Clears the status line (before the answer is printed). */
  clear(): void {
    if (this.#status) this.#stream.write('\r\x1b[2K');
    this.#status = '';
  }

  #system(message: Extract<AgentMessage, { type: 'system' }>): void {
    switch (message.subtype) {
      case 'init':
        for (const server of message.mcp_servers)
          if (server.status === 'failed')
            this.#line(`! MCP server ${server.name} failed: ${server.error ?? ''}`, 'red');
        return this.#setStatus('thinking');
      case 'mcp_server_status':
        if (message.status === 'failed')
          this.#line(`! MCP server ${message.server_name} failed: ${message.error ?? ''}`, 'red');
        return;
      case 'permission_denied':
        this.#denied.add(message.tool_use_id);
        this.#tools.delete(message.tool_use_id);
        return this.#line(`✗ ${message.tool_name} denied: ${message.message}`, 'yellow');
      case 'api_retry': {
        const status = message.error_status === null ? '' : ` (${message.error_status})`;
        const wait = (message.retry_delay_ms / 1000).toFixed(1);
        const line = `↻ retry ${message.attempt}/${message.max_retries} in ${wait} s: ${message.error}${status}`;
        return this.#line(line, 'yellow');
      }
      case 'model_fallback':
        return this.#line(`↻ ${message.content}`, 'yellow');
      case 'informational':
        if (message.level === 'warning') this.#line(`! ${message.content}`, 'yellow');
        return;
      case 'compact_boundary':
        return this.#line('… history compacted', 'dim');
      default:
        return;
    }
  }

  #assistant(content: AssistantContentBlock[], nested: boolean): void {
    for (const block of content) {
      if (block.type !== 'tool_use') continue;
      const title = toolTitle(block.name, block.input);
      this.#tools.set(block.id, { title, started: this.#now(), nested });
      this.#setStatus(title);
    }
  }

  #toolResults(content: string | UserContentBlock[]): void {
    if (typeof content === 'string') return;
    for (const block of content) {
      if (block.type !== 'tool_result') continue;
      if (this.#denied.delete(block.tool_use_id)) continue; // said by its permission_denied line
      const tool = this.#tools.get(block.tool_use_id);
      if (!tool) continue;
      this.#tools.delete(block.tool_use_id);
      const seconds = `${((this.#now() - tool.started) / 1000).toFixed(1)} s`;
      const indent = tool.nested ? '  ' : '';
      if (block.is_error) {
        const why = firstLine(resultText(block.content));
        this.#line(`${indent}✗ ${tool.title} (${seconds})${why ? `: ${why}` : ''}`, 'red');
      } else this.#line(`${indent}✓ ${tool.title} (${seconds})`, 'green');
    }
    this.#setStatus('thinking');
  }

  /** A finished line above the status line. */
  #line(text: string, style: Style): void {
    const status = this.#status;
    this.clear();
    // Not cut to the width (a denial's hint is at its end): a long line wraps.
    this.#stream.write(`${this.#paint(text.replace(/\s+/g, ' '), style)}\n`);
    if (status) this.#setStatus(status);
  }

  /** The current step, rewritten in place. */
  #setStatus(text: string): void {
    if (!this.#statusLine) return;
    this.#status = text;
    this.#stream.write(`\r\x1b[2K${this.#paint(this.#fit(`… ${text}`), 'dim')}`);
  }

  /** The status line fits the terminal's width: it is rewritten with a carriage return. */
  #fit(text: string): string {
    const flat = text.replace(/\s+/g, ' ');
    const width = Math.max(20, (this.#stream.columns ?? 80) - 1);
    return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
  }

  #paint(text: string, style: Style): string {
    return this.#colors ? styleText(style, text, { validateStream: false }) : text;
  }
}

function resultText(content: ToolResultBlock['content']): string {
  return typeof content === 'string'
    ? content
    : content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

const firstLine = (text: string) => text.trim().split('\n')[0]?.trim() ?? '';
