/** Gemini CLI's tools in agentpipe's names and input shapes, and agentpipe's tool rules in Gemini's spelling. */
import path from 'node:path';
import { finite, str } from '../../process/guards.ts';

/** agentpipe's tool names → Gemini's. */
export const GEMINI_TOOLS: Record<string, string> = {
  Bash: 'run_shell_command',
  Write: 'write_file',
  Edit: 'replace',
  Read: 'read_file',
  Glob: 'glob',
  Grep: 'grep_search',
  LS: 'list_directory',
  WebFetch: 'web_fetch',
  WebSearch: 'google_web_search',
};

/**
 * An allowed-tools rule in Gemini's spelling: `Bash(git diff:*)` → `run_shell_command(git diff)`; unknown names as they
 * are.
 */
export function geminiToolRule(rule: string): string {
  const match = /^(\w+)(?:\((.*)\))?$/.exec(rule.trim());
  if (!match) return rule;
  const name = GEMINI_TOOLS[match[1]!] ?? match[1]!;
  const arg = match[2]?.replace(/:\*$/, '').replace(/\s*\*$/, '');
  return arg ? `${name}(${arg})` : name;
}

type Json = Record<string, unknown>;

/** A Gemini tool call as agentpipe's tool: its name and input. */
export function mapGeminiTool(name: string, args: Json, cwd: string): { name: string; input: Json } {
  const file = str(args.file_path) ?? str(args.absolute_path) ?? str(args.path);
  const abs = (p: string): string => path.resolve(cwd, p);
  const dir = str(args.dir_path) ?? str(args.path) ?? str(args.directory);
  const opt = (key: string, value: unknown): Json => (value === undefined ? {} : { [key]: value });
  switch (name) {
    case 'run_shell_command':
      return {
        name: 'Bash',
        input: { command: str(args.command) ?? '', ...opt('description', str(args.description)) },
      };
    case 'write_file':
      return { name: 'Write', input: { file_path: abs(file ?? ''), content: str(args.content) ?? '' } };
    case 'replace': {
      const many = args.allow_multiple === true || (finite(args.expected_replacements) ?? 1) > 1;
      return {
        name: 'Edit',
        input: {
          file_path: abs(file ?? ''),
          old_string: str(args.old_string) ?? '',
          new_string: str(args.new_string) ?? '',
          ...(many ? { replace_all: true } : {}),
        },
      };
    }
    case 'read_file':
      return {
        name: 'Read',
        input: {
          file_path: abs(file ?? ''),
          ...opt('offset', finite(args.offset)),
          ...opt('limit', finite(args.limit)),
        },
      };
    case 'glob':
      return { name: 'Glob', input: { pattern: str(args.pattern) ?? '', ...opt('path', dir) } };
    case 'grep_search':
    case 'search_file_content':
    case 'grep':
      return {
        name: 'Grep',
        input: { pattern: str(args.pattern) ?? '', ...opt('path', dir), ...opt('glob', str(args.include)) },
      };
    case 'list_directory':
      return { name: 'LS', input: { path: abs(dir ?? '.') } };
    case 'web_fetch': {
      const prompt = str(args.prompt) ?? '';
      return { name: 'WebFetch', input: { url: str(args.url) ?? /https?:\/\/\S+/.exec(prompt)?.[0] ?? '', prompt } };
    }
    case 'google_web_search':
      return { name: 'WebSearch', input: { query: str(args.query) ?? '' } };
    default:
      return { name, input: args };
  }
}
