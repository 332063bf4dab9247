/**
 * Codex's `-c key=value` overrides: a dotted key and a TOML value (the Codex SDK writes strings as
 * JSON strings, numbers, booleans, arrays and inline tables). As in codex, a value that is not TOML
 * is taken as a literal string.
 */

/** A parsed override value. */
export type ConfigValue = string | number | boolean | ConfigValue[] | { [key: string]: ConfigValue };

/** One `-c` override. */
export interface ConfigOverride {
  key: string;
  value: ConfigValue;
}

/** Parses `key=value`; throws with codex's wording when there is no `=`. */
export function parseOverride(text: string): ConfigOverride {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`Invalid override (missing '='): ${text}`);
  const key = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1).trim();
  const parsed = new TomlValue(raw).whole();
  return { key, value: parsed ?? raw };
}

/** A small reader of one TOML value (strings, numbers, booleans, arrays, inline tables). */
class TomlValue {
  #at = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  /** The value when the whole text is one; undefined otherwise. */
  whole(): ConfigValue | undefined {
    try {
      const value = this.#value();
      this.#space();
      return this.#at === this.#text.length ? value : undefined;
    } catch {
      return undefined;
    }
  }

  #space(): void {
    while (/\s/.test(this.#text[this.#at] ?? '')) this.#at++;
  }

  #value(): ConfigValue {
    this.#space();
    const c = this.#text[this.#at];
    if (c === '"') return this.#basicString();
    if (c === "'") return this.#literalString();
    if (c === '[') return this.#array();
    if (c === '{') return this.#table();
    const word = /^(true|false|[+-]?(?:\d[\d_]*)(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)/.exec(this.#text.slice(this.#at));
    if (!word) throw new Error('not a value');
    this.#at += word[0].length;
    if (word[0] === 'true' || word[0] === 'false') return word[0] === 'true';
    return Number(word[0].replaceAll('_', ''));
  }

  #basicString(): string {
    const rest = this.#text.slice(this.#at);
    const match = /^"(?:[^"\\\n]|\\.)*"/.exec(rest);
    if (!match) throw new Error('unterminated string');
    this.#at += match[0].length;
    return JSON.parse(match[0].replace(/\\U([0-9a-fA-F]{8})/g, (_, hex: string) => escapeCodePoint(hex))) as string;
  }

  #literalString(): string {
    const end = this.#text.indexOf("'", this.#at + 1);
    if (end === -1) throw new Error('unterminated string');
    const value = this.#text.slice(this.#at + 1, end);
    this.#at = end + 1;
    return value;
  }

  #array(): ConfigValue[] {
    this.#at++;
    const items: ConfigValue[] = [];
    for (;;) {
      this.#space();
      if (this.#text[this.#at] === ']') break;
      items.push(this.#value());
      this.#space();
      if (this.#text[this.#at] === ',') this.#at++;
      else if (this.#text[this.#at] !== ']') throw new Error('expected , or ]');
    }
    this.#at++;
    return items;
  }

  #table(): { [key: string]: ConfigValue } {
    this.#at++;
    const table: { [key: string]: ConfigValue } = {};
    for (;;) {
      this.#space();
      if (this.#text[this.#at] === '}') break;
      const key = this.#key();
      this.#space();
      if (this.#text[this.#at++] !== '=') throw new Error('expected =');
      table[key] = this.#value();
      this.#space();
      if (this.#text[this.#at] === ',') this.#at++;
      else if (this.#text[this.#at] !== '}') throw new Error('expected , or }');
    }
    this.#at++;
    return table;
  }

  #key(): string {
    const c = this.#text[this.#at];
    if (c === '"') return this.#basicString();
    if (c === "'") return this.#literalString();
    const bare = /^[A-Za-z0-9_-]+/.exec(this.#text.slice(this.#at));
    if (!bare) throw new Error('expected a key');
    this.#at += bare[0].length;
    return bare[0];
  }
}

/** A TOML `\UXXXXXXXX` escape as the JSON escapes of its code point. */
function escapeCodePoint(hex: string): string {
  const text = String.fromCodePoint(parseInt(hex, 16));
  let escaped = '';
  for (let i = 0; i < text.length; i++) escaped += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}
