/**
 * Characters that bash and tree-sitter's bash grammar may read differently. The grammar takes
 * `\r`, `\v` and `\f` for blanks (`ls \r# ; touch x` is `ls` and a comment to it, two commands
 * to bash), joins a backslash-newline inside a word differently (`tr\<newline>ap` is `tr` and
 * `ap` to it, `trap` to bash), and other control characters, Unicode spaces and invisible format
 * characters give other chances for the two to disagree. A line holding any of them is not judged
 * on its parse: it asks.
 */

/**
 * C0 controls but tab and newline, DEL, C1 controls, Unicode spaces and separators other than the
 * space, and format characters (zero-width, bidirectional overrides, the byte order mark).
 */
const AMBIGUOUS =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/u;

/** Why bash and the grammar may read `line` differently, or undefined. */
export function ambiguousCharacter(line: string): string | undefined {
  const found = AMBIGUOUS.exec(line);
  if (found) {
    const code = found[0].codePointAt(0)!.toString(16).padStart(4, '0');
    return `a control or invisible character (U+${code}) that bash and the parser may read differently`;
  }
  if (/\\\r?\n/.test(line)) return 'a backslash before a newline, which bash and the parser join differently';
  return undefined;
}
