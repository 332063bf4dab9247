/**
 * YAML frontmatter of the Markdown files agentpipe reads as Claude Code does (agents, output styles): a `---` line,
 * YAML, a `---` line, then the body. The YAML parser loads only when a file has frontmatter.
 */
import { errorMessage } from '../process/errors.ts';
import { isRecord } from '../process/guards.ts';

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The file's frontmatter (undefined when it has none) and its body; throws a clear error when the YAML is bad. */
export async function frontmatterOf(
  text: string,
): Promise<{ meta: Record<string, unknown> | undefined; body: string }> {
  const match = FRONTMATTER.exec(text);
  if (!match) return { meta: undefined, body: text.trim() };
  const { parse } = await import('yaml');
  let meta: unknown;
  try {
    meta = parse(match[1]!);
  } catch (error) {
    throw new Error(`invalid YAML frontmatter: ${errorMessage(error).split('\n')[0]}`);
  }
  // An empty block (`---\n---`) is no fields.
  if (meta === null || meta === undefined) meta = {};
  if (!isRecord(meta)) throw new Error('the frontmatter must be a mapping (name: ..., description: ...)');
  return { meta, body: text.slice(match[0].length).trim() };
}
