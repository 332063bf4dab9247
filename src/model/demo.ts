/**
 * The built-in demo of the `scripted` model: with no script, it really works on the current
 * folder. It lists the folder with Bash, reads one file, writes a plan with TodoWrite and
 * answers from what the tools returned. Each answer is derived from the conversation so far.
 */
import type { MessageParam, ToolResultBlock, ToolUseBlock } from '../messages/types.ts';
import type { ModelRequest } from './types.ts';
import type { ScriptSource, ScriptTurn } from './scripted.ts';

const PREFERRED = [
  /^readme(\.\w+)?$/i,
  /^package\.json$/,
  /^cargo\.toml$/,
  /^pyproject\.toml$/,
  /^go\.mod$/,
  /\.(md|txt)$/i,
];

export class DemoScript implements ScriptSource {
  next(request: ModelRequest): ScriptTurn {
    const calls = toolCallsSinceLastPrompt(request.messages);
    const done = (name: string) => calls.find((c) => c.use.name === name);
    const listing = done('Bash');
    if (!listing) {
      return {
        thinking:
          'The user wants to know what is in this folder. I will list it first, then read the most telling file.',
        text: "I'll start by listing the folder.",
        tool_calls: [{ name: 'Bash', input: { command: 'ls -la', description: 'List the folder' } }],
      };
    }
    const entries = parseListing(listing.result ? textOf(listing.result) : '');
    const read = done('Read');
    const file = pickFile(entries.files);
    if (!read && file && !listing.result?.is_error) {
      return { text: `Let me read ${file}.`, tool_calls: [{ name: 'Read', input: { file_path: file, limit: 40 } }] };
    }
    if (!done('TodoWrite')) {
      const readLabel = file ? `Read ${file}` : 'Look for a file to read';
      return {
        text: 'Here is my plan.',
        tool_calls: [
          {
            name: 'TodoWrite',
            input: {
              todos: [
                { content: 'List the folder', status: 'completed', activeForm: 'Listing the folder' },
                {
                  content: readLabel,
                  status: 'completed',
                  activeForm: file ? `Reading ${file}` : 'Looking for a file',
                },
                { content: 'Summarize what is here', status: 'in_progress', activeForm: 'Summarizing what is here' },
              ],
            },
          },
        ],
      };
    }
    return { text: summary(entries, file, read?.result) };
  }
}

interface Listing {
  files: string[];
  dirs: string[];
}

/** Tool calls made since the last real user prompt, each with its result. */
function toolCallsSinceLastPrompt(messages: MessageParam[]): Array<{ use: ToolUseBlock; result?: ToolResultBlock }> {
  let start = 0;
  messages.forEach((m, i) => {
    const isPrompt =
      m.role === 'user' && (typeof m.content === 'string' || !m.content.some((b) => b.type === 'tool_result'));
    if (isPrompt) start = i;
  });
  const uses: ToolUseBlock[] = [];
  const results = new Map<string, ToolResultBlock>();
  for (const m of messages.slice(start)) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'tool_use') uses.push(b);
      if (b.type === 'tool_result') results.set(b.tool_use_id, b);
    }
  }
  return uses.map((use) => ({ use, result: results.get(use.id) }));
}

function textOf(result: ToolResultBlock): string {
  return typeof result.content === 'string'
    ? result.content
    : result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

function parseListing(text: string): Listing {
  const files: string[] = [];
  const dirs: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^([-dl])[rwxsStT-]{9}\S*\s+\d+\s+\S+\s+\S+\s+\d+\s+\S+\s+\S+\s+\S+\s+(.+)$/.exec(line);
    if (!m) continue;
    const name = m[2].replace(/ -> .*$/, '');
    if (name === '.' || name === '..') continue;
    (m[1] === 'd' ? dirs : files).push(name);
  }
  return { files, dirs };
}

function pickFile(files: string[]): string | undefined {
  for (const pattern of PREFERRED) {
    const hit = files.find((f) => pattern.test(f));
    if (hit) return hit;
  }
  return files.find((f) => !f.startsWith('.')) ?? files[0];
}

function summary(listing: Listing, file: string | undefined, read: ToolResultBlock | undefined): string {
  const { files, dirs } = listing;
  const total = files.length + dirs.length;
  if (total === 0) return 'This folder is empty: `ls -la` shows no files or folders besides `.` and `..`.';
  const names = (list: string[]) =>
    list.length > 8 ? `${list.slice(0, 8).join(', ')} and ${list.length - 8} more` : list.join(', ');
  const parts = [
    `This folder holds ${total} entr${total === 1 ? 'y' : 'ies'}: ${files.length} ` +
      `file${files.length === 1 ? '' : 's'} and ${dirs.length} folder${dirs.length === 1 ? '' : 's'}.`,
  ];
  if (dirs.length) parts.push(`Folders: ${names(dirs)}.`);
  if (files.length) parts.push(`Files: ${names(files)}.`);
  if (file && read && !read.is_error) {
    const lines = textOf(read)
      .split('\n')
      .map((l) => l.replace(/^\s*\d+\t/, ''));
    const first = lines.find((l) => l.trim()) ?? '';
    parts.push(`I read ${file}; it begins with: "${first.trim().slice(0, 120)}".`);
  } else if (file) {
    parts.push(`I could not read ${file}.`);
  }
  return parts.join('\n');
}
