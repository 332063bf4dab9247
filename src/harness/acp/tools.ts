/** ACP tool calls as agentpipe's tools: names, inputs, result text and structured results. */
import type { ContentBlock, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { editResultOf, writeResultOf } from '../../tools/file-patch.ts';
import { isRecord, str } from './shared.ts';

/** A tool call of the agent as it is known so far (tool_call, then its updates merged in). */
export interface ToolState {
  id: string;
  title: string;
  name?: string;
  kind?: ToolKind;
  status?: string;
  rawInput?: unknown;
  rawOutput?: unknown;
  content: ToolCallContent[];
  locations: ToolCallLocation[];
  /** The tool_use emitted for it. */
  use?: { name: string; input: Record<string, unknown> };
  done: boolean;
  progress?: string;
  started: number;
}

/** Our tools, by the first word of an ACP title (`Read src/a.ts`, as sdk/tool-info.ts titles them). */
const TITLED_TOOLS = new Set([
  'Read',
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'Glob',
  'Grep',
  'LS',
  'WebFetch',
  'WebSearch',
  'Task',
]);

/** Our tool name and input for an ACP tool call: the inverse of sdk/tool-info.ts where the call is one of ours. */
export function toolOf(call: {
  title: string;
  name?: string;
  kind?: ToolKind;
  rawInput?: unknown;
  content?: ToolCallContent[];
  locations?: ToolCallLocation[];
}): { name: string; input: Record<string, unknown> } {
  const input: Record<string, unknown> = isRecord(call.rawInput) ? { ...call.rawInput } : {};
  if (call.name) return { name: call.name, input };
  const title = call.title.trim();
  const first = /^(\w+)(?:\s|$)/.exec(title)?.[1];
  const file = str(input.file_path) ?? str(input.filePath) ?? str(input.path) ?? call.locations?.[0]?.path;
  const diff = call.content?.find((c) => c.type === 'diff');
  switch (call.kind) {
    case 'execute': {
      const command =
        str(input.command) ??
        (Array.isArray(input.command) ? input.command.map(String).join(' ') : undefined) ??
        /^`([^`]+)`$/.exec(title)?.[1];
      if (command !== undefined) return { name: 'Bash', input: { ...input, command } };
      break;
    }
    case 'edit':
      if (typeof input.file_path === 'string' && typeof input.content === 'string') return { name: 'Write', input };
      if (typeof input.file_path === 'string' && typeof input.new_string === 'string') return { name: 'Edit', input };
      if (typeof input.file_path === 'string' && Array.isArray(input.edits)) return { name: 'MultiEdit', input };
      if (diff) {
        const base = { ...input, file_path: diff.path };
        if (diff.oldText == null) return { name: 'Write', input: { ...base, content: diff.newText } };
        return { name: 'Edit', input: { ...base, old_string: diff.oldText, new_string: diff.newText } };
      }
      break;
    case 'read':
      if (file && (!first || !TITLED_TOOLS.has(first) || first === 'Read'))
        return { name: 'Read', input: { ...input, file_path: file } };
      break;
    case 'fetch':
      if (typeof input.url === 'string') return { name: 'WebFetch', input };
      if (typeof input.query === 'string') return { name: 'WebSearch', input };
      break;
    case 'search':
      if (typeof input.pattern === 'string') return { name: title.startsWith('Find ') ? 'Glob' : 'Grep', input };
      break;
    default:
      break;
  }
  if (first && TITLED_TOOLS.has(first)) return { name: first, input };
  // `server: tool` is how MCP tools are titled.
  const mcp = call.kind === 'other' || call.kind === undefined ? /^([\w-]+): ([\w-]+)$/.exec(title) : null;
  if (mcp) return { name: `mcp__${mcp[1]}__${mcp[2]}`, input };
  return { name: title.slice(0, 200) || 'tool', input };
}

/** The text of a content block (links as links; images and audio have none). */
export function chunkText(block: ContentBlock): string {
  if (block.type === 'text') return block.text;
  if (block.type === 'resource_link') return `[${block.name}](${block.uri})`;
  if (block.type === 'resource' && 'text' in block.resource) return block.resource.text;
  return '';
}

/** A raw output as text: a string, an output/stdout field, or its JSON. */
export function outputText(raw: unknown): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw === 'string') return raw;
  if (isRecord(raw)) {
    const out = str(raw.output) ?? str(raw.stdout);
    if (out !== undefined) return [out, str(raw.stderr)].filter(Boolean).join('\n');
  }
  return JSON.stringify(raw).slice(0, 100_000);
}

/**
 * The tool_use_result of a finished call: the agent's own when it is structured, else an Edit/Write result built from
 * its diff.
 */
export async function structuredResult(tool: ToolState): Promise<unknown> {
  const raw = tool.rawOutput;
  if (isRecord(raw) && Array.isArray(raw.structuredPatch)) return raw;
  const diff = tool.content.find((c) => c.type === 'diff');
  if (diff && tool.use) {
    const before = diff.oldText ?? null;
    const input = tool.use.input;
    if (tool.use.name === 'Write' || before === null) return writeResultOf(diff.path, before, diff.newText);
    return editResultOf(
      diff.path,
      str(input.old_string) ?? before,
      str(input.new_string) ?? diff.newText,
      before,
      diff.newText,
      input.replace_all === true,
    );
  }
  return isRecord(raw) ? raw : undefined;
}
