/**
 * The value of one word of a parsed command line after quote removal, and the glob pattern bash
 * would expand it with: its unquoted glob and brace characters (`* ? [ {`) stay special, every
 * quoted or backslash-escaped character is escaped with a backslash (`'*'x*` is `\*x*`).
 */
import type { ShellNode as Node } from './grammar.ts';

/** A literal word: its value, and its pattern when it has unquoted glob or brace characters. */
export interface Literal {
  value: string;
  pattern?: string;
}

/** A run of the word's characters: `quoted` ones never expand. */
interface Part {
  value: string;
  quoted: boolean;
  /** The pattern of an unquoted part (its escapes kept). */
  pattern?: string;
}

/** The value of a word after quote removal, or undefined when the shell would compute it. */
export function literalOf(node: Node): Literal | undefined {
  const parts = partsOf(node);
  if (!parts) return undefined;
  const value = parts.map((p) => p.value).join('');
  if (!parts.some((p) => !p.quoted && p.pattern !== undefined && /(^|[^\\])(\\\\)*[*?[{]/.test(p.pattern)))
    return { value };
  return { value, pattern: parts.map((p) => (p.quoted ? escaped(p.value) : p.pattern!)).join('') };
}

/** Every character escaped with a backslash: a pattern that matches `text` only. */
export const escaped = (text: string) => text.replace(/[\s\S]/g, (c) => `\\${c}`);

function partsOf(node: Node): Part[] | undefined {
  switch (node.type) {
    case 'word':
      return [unquoted(node.text)];
    case 'number':
      return [{ value: node.text, quoted: false, pattern: node.text }];
    case 'raw_string':
      return [{ value: node.text.slice(1, -1), quoted: true }];
    case 'string': {
      // Only plain text inside: an expansion or a substitution is a child of another type. The
      // value is the node's own text (the grammar's string_content children leave out newlines).
      if (node.children.some((child) => child && child.type !== '"' && child.type !== 'string_content'))
        return undefined;
      const value = node.text.slice(1, -1).replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c));
      return [{ value, quoted: true }];
    }
    case 'concatenation': {
      const parts: Part[] = [];
      for (const child of node.children) {
        const inner = child ? partsOf(child) : undefined;
        if (!inner) return undefined;
        parts.push(...inner);
      }
      return parts;
    }
    default:
      return undefined;
  }
}

/** An unquoted word: backslashes escape the next character (kept in the pattern). */
function unquoted(text: string): Part {
  let value = '';
  let pattern = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\') {
      const next = text[++i];
      if (next !== undefined && next !== '\n') {
        value += next;
        pattern += `\\${next}`;
      }
      continue;
    }
    value += ch;
    pattern += ch;
  }
  return { value, quoted: false, pattern };
}
