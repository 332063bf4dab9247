/**
 * The interactive session's answers as Markdown in the terminal (headings, lists, code blocks highlighted, inline code,
 * bold): marked parses, marked-terminal renders. The answer streams in deltas; a block is rendered once it is whole (a
 * blank line outside a code block, a code block's closing fence, the end of the message), so what is printed never
 * changes after it was printed. Loaded only by the interactive session (src/tui/).
 */
import { stripVTControlCharacters } from 'node:util';
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { isRecord } from '../process/guards.ts';

/** A fence line: opens or closes a code block. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Renders one answer's text deltas as Markdown, a whole block at a time. */
export class MarkdownStream {
  readonly #marked: Marked;
  readonly #colors: boolean;
  /** Text after the last whole line. */
  #partial = '';
  /** Whole lines of the block being read. */
  #block: string[] = [];
  /** The fence that opened the code block the block is in, if it is in one. */
  #fence: string | undefined;
  /** Something was printed: the next block is set apart by a blank line. */
  #printed = false;

  /** `width`: the terminal's columns; `colors`: whether the terminal shows them (NO_COLOR, TERM: Node's hasColors). */
  constructor(options: { width?: number; colors: boolean }) {
    const width = Math.max(20, Math.min(options.width ?? 80, 120));
    // The types are of marked-terminal 6 (a Renderer); marked-terminal 7 returns the extension marked 18 takes.
    const extension: unknown = markedTerminal({ width, reflowText: true });
    if (!isRecord(extension)) throw new TypeError('marked-terminal returned no extension');
    this.#marked = new Marked(extension);
    this.#colors = options.colors;
  }

  /** Takes a delta; returns what is ready to print (whole blocks, rendered), maybe ''. */
  push(text: string): string {
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop()!;
    let out = '';
    for (const line of lines) out += this.#line(line);
    return out;
  }

  /** The end of the answer: the rest, rendered. */
  end(): string {
    if (this.#partial) this.#block.push(this.#partial);
    this.#partial = '';
    this.#fence = undefined;
    return this.#flush();
  }

  #line(line: string): string {
    const fence = FENCE.exec(line)?.[1];
    if (this.#fence !== undefined) {
      this.#block.push(line);
      if (fence && fence[0] === this.#fence[0] && fence.length >= this.#fence.length) {
        this.#fence = undefined;
        return this.#flush();
      }
      return '';
    }
    if (fence) {
      // A code block starts: what came before it is a block of its own.
      const before = this.#flush();
      this.#fence = fence;
      this.#block.push(line);
      return before;
    }
    if (line.trim() === '') return this.#flush();
    this.#block.push(line);
    return '';
  }

  /** The block read so far, rendered ('' when empty). */
  #flush(): string {
    const source = this.#block.join('\n');
    this.#block = [];
    if (!source.trim()) return '';
    let rendered = (this.#marked.parse(source, { async: false }) as string).replace(/\n+$/, '');
    if (!this.#colors) rendered = stripVTControlCharacters(rendered);
    const out = `${this.#printed ? '\n' : ''}${rendered}\n`;
    this.#printed = true;
    return out;
  }
}
