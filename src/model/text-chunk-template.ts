/**
 * Reads streamed chat-completion chunks that repeat one layout, byte for byte, except for their
 * text (`choices[0].delta.content`), without JSON.parse of the whole chunk: most of a stream is
 * these, and parsing each one was the largest cost of the OpenAI-compatible delta rate.
 *
 * The layout is learnt from a chunk JSON.parse has read: the text's string literal is found in
 * the chunk's bytes and checked (a probe text put in its place must come back as the content and
 * change nothing else); the bytes before and after it are the template. A later chunk is read
 * here only when it starts and ends with those bytes and what lies between is one JSON string
 * literal (JSON.parse reads it): replacing one string token by another in valid JSON changes that
 * value and nothing else, so the chunk means the template's chunk with this text. Anything else
 * (a finish, usage, a tool call, a server that writes a changing field such as OpenAI's
 * `obfuscation`) goes through JSON.parse as before. A server whose chunks never fit stops being
 * tried after a few layouts.
 */
import type OpenAI from 'openai';

/** A layout is learnt at most this many times per stream (each costs two more parses). */
const MAX_LAYOUTS = 4;
/**
 * Only from a chunk this small (real ones are a few hundred bytes), trying this many `"content"` keys at most: each
 * try parses the chunk again, and a server must not make the reader quadratic.
 */
const MAX_LEARNT_LENGTH = 16 * 1024;
const MAX_CANDIDATES = 8;
const PROBE = '\u0000agentpipe-probe';

export class TextChunkTemplate {
  #prefix: string | undefined;
  #suffix: string | undefined;
  #layouts = 0;

  /** The text of a chunk in the learnt layout; undefined when there is none or the chunk does not fit it. */
  text(data: string): string | undefined {
    const prefix = this.#prefix;
    const suffix = this.#suffix;
    if (prefix === undefined || suffix === undefined) return undefined;
    if (data.length < prefix.length + suffix.length + 2) return undefined;
    // Slices compared, not startsWith()/endsWith(): on the sliced strings the SSE parser hands out,
    // those go a character at a time, and this check cost three times as much with them.
    if (data.slice(0, prefix.length) !== prefix || data.slice(data.length - suffix.length) !== suffix) return undefined;
    const literal = data.slice(prefix.length, data.length - suffix.length);
    if (literal.charCodeAt(0) !== 34 || literal.charCodeAt(literal.length - 1) !== 34) return undefined;
    try {
      const text: unknown = JSON.parse(literal);
      return typeof text === 'string' ? text : undefined;
    } catch {
      return undefined;
    }
  }

  /** Learns the layout of `data` (which JSON.parse read as `chunk`) when it is a plain text chunk. */
  learn(data: string, chunk: OpenAI.Chat.ChatCompletionChunk): void {
    if (this.#layouts >= MAX_LAYOUTS || data.length > MAX_LEARNT_LENGTH || !isPlainText(chunk)) return;
    this.#layouts++;
    this.#prefix = this.#suffix = undefined;
    const content = chunk.choices[0]!.delta.content!;
    let tries = 0;
    for (
      let at = data.indexOf('"content"');
      at !== -1 && tries < MAX_CANDIDATES;
      at = data.indexOf('"content"', at + 1)
    ) {
      const start = skipSpace(data, skipSpace(data, at + '"content"'.length) + 1);
      if (data[skipSpace(data, at + '"content"'.length)] !== ':' || data[start] !== '"') continue;
      const end = stringEnd(data, start);
      if (end === -1) continue;
      tries++;
      const prefix = data.slice(0, start);
      const suffix = data.slice(end);
      if (sameButText(chunk, content, data.slice(start, end), prefix, suffix)) {
        this.#prefix = prefix;
        this.#suffix = suffix;
        return;
      }
    }
  }
}

/** A chunk that only adds text: one choice, no finish, no usage, and a delta with nothing but its content. */
function isPlainText(chunk: OpenAI.Chat.ChatCompletionChunk): boolean {
  if (chunk.usage != null || !Array.isArray(chunk.choices) || chunk.choices.length !== 1) return false;
  const choice = chunk.choices[0]!;
  if (choice.finish_reason != null || typeof choice.delta !== 'object' || choice.delta === null) return false;
  if (typeof choice.delta.content !== 'string' || choice.delta.content === '') return false;
  // Other delta fields may be there only as null (role is ignored by the translator).
  return Object.entries(choice.delta).every(([key, value]) => key === 'content' || key === 'role' || value === null);
}

/** The index after the whitespace at `at`. */
function skipSpace(data: string, at: number): number {
  while (at < data.length && (data[at] === ' ' || data[at] === '\n' || data[at] === '\r' || data[at] === '\t')) at++;
  return at;
}

/** The index after the string literal that opens at `start`, or -1. */
function stringEnd(data: string, start: number): number {
  for (let at = start + 1; at < data.length; at++) {
    const c = data.charCodeAt(at);
    if (c === 92)
      at++; // a backslash: the next character is escaped
    else if (c === 34) return at + 1;
  }
  return -1;
}

/** Whether the literal is the chunk's content, and a probe in its place changes the content and nothing else. */
function sameButText(
  chunk: OpenAI.Chat.ChatCompletionChunk,
  content: string,
  literal: string,
  prefix: string,
  suffix: string,
): boolean {
  try {
    if (JSON.parse(literal) !== content) return false;
    const probed = JSON.parse(prefix + JSON.stringify(PROBE) + suffix) as OpenAI.Chat.ChatCompletionChunk;
    if (probed.choices?.[0]?.delta?.content !== PROBE) return false;
    probed.choices[0].delta.content = content;
    return JSON.stringify(probed) === JSON.stringify(chunk);
  } catch {
    return false;
  }
}
