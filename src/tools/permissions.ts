/**
 * Permission rules and modes, as in Claude Code. A rule is `Tool` or `Tool(specifier)`:
 * `Bash(git status:*)` (command prefix), `Bash(npm test)` (exact), `Read(./src/**)` (path glob),
 * `mcp__server__*` (tool-name glob). Deny rules win over allow rules.
 */
import path from 'node:path';
import type { PermissionMode } from '../messages/types.ts';
import type { Tool } from './types.ts';

/** One parsed rule. */
export interface PermissionRule { tool: string; specifier?: string }

/** What the rules say about one call; `ask` means a prompt (or a callback) decides. */
export type PermissionVerdict = { behavior: 'allow' } | { behavior: 'deny'; reason: string } | { behavior: 'ask'; reason: string };

/** Splits `--allowedTools` style lists ("Bash(git log:*),Read" or space separated) into rules. */
export function parseRules(values: string[] | undefined): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const value of values ?? []) {
    for (const item of splitTopLevel(value)) {
      const m = /^([^()]+?)(?:\((.*)\))?$/.exec(item.trim());
      if (m) rules.push({ tool: m[1]!.trim(), specifier: m[2]?.trim() || undefined });
    }
  }
  return rules;
}

/** Splits on commas and spaces that are not inside parentheses. */
function splitTopLevel(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if ((ch === ',' || ch === ' ') && depth === 0) {
      if (current.trim()) out.push(current);
      current = '';
    } else current += ch;
  }
  if (current.trim()) out.push(current);
  return out;
}

/** True when the rule names the whole tool (no specifier), so the tool is hidden when denied. */
export function isWholeToolRule(rule: PermissionRule, name: string): boolean {
  return rule.specifier === undefined && toolNameMatches(rule.tool, name);
}

function toolNameMatches(pattern: string, name: string): boolean {
  if (pattern === name) return true;
  if (pattern.includes('*')) return path.matchesGlob(name, pattern);
  // `mcp__server` covers every tool of that server.
  return pattern.startsWith('mcp__') && name.startsWith(`${pattern}__`);
}

/** True when `rule` covers this call. */
export function ruleMatches(rule: PermissionRule, toolName: string, input: Record<string, unknown>, cwd: string): boolean {
  if (!toolNameMatches(rule.tool, toolName)) return false;
  if (rule.specifier === undefined || rule.specifier === '*') return true;
  if (typeof input.command === 'string') return commandMatches(rule.specifier, input.command);
  const target = [input.file_path, input.path, input.notebook_path].find((v): v is string => typeof v === 'string');
  if (target !== undefined) return pathMatches(rule.specifier, path.resolve(cwd, target), cwd);
  if (typeof input.url === 'string') return input.url.includes(rule.specifier.replace(/^domain:/, ''));
  return false;
}

function commandMatches(specifier: string, command: string): boolean {
  const trimmed = command.trim();
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2);
    return trimmed === prefix || trimmed.startsWith(`${prefix} `);
  }
  if (specifier.includes('*')) return new RegExp(`^${specifier.split('*').map(escapeRegex).join('.*')}$`).test(trimmed);
  return trimmed === specifier;
}

function pathMatches(specifier: string, file: string, cwd: string): boolean {
  const home = process.env.HOME ?? '';
  const pattern = specifier.startsWith('//') ? specifier.slice(1)
    : specifier.startsWith('~/') ? path.join(home, specifier.slice(2))
    : path.resolve(cwd, specifier);
  return path.matchesGlob(file, pattern) || file === pattern;
}

const escapeRegex = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** The rule-and-mode verdict for one call, before hooks and callbacks. */
export function checkPermission(options: {
  tool: Tool;
  input: Record<string, unknown>;
  mode: PermissionMode;
  allow: PermissionRule[];
  deny: PermissionRule[];
  cwd: string;
  /** Extra working folders (`--add-dir`): acceptEdits covers them like the cwd. */
  directories?: string[];
}): PermissionVerdict {
  const { tool, input, mode, allow, deny, cwd } = options;
  const denied = deny.find((rule) => ruleMatches(rule, tool.name, input, cwd));
  if (denied) return { behavior: 'deny', reason: `Permission to use ${tool.name} was denied by the rule ${formatRule(denied)}` };
  const readOnly = tool.isReadOnly(input);
  if (mode === 'plan' && !readOnly) {
    return { behavior: 'deny', reason: `${tool.name} was not run: in plan mode nothing that changes files or runs commands executes` };
  }
  if (allow.some((rule) => ruleMatches(rule, tool.name, input, cwd))) return { behavior: 'allow' };
  if (mode === 'bypassPermissions' || readOnly) return { behavior: 'allow' };
  const outside = tool.editsFiles ? outsideWorkingFolders(input, cwd, options.directories ?? []) : undefined;
  if (mode === 'acceptEdits' && tool.editsFiles && outside === undefined) return { behavior: 'allow' };
  if (mode === 'acceptEdits' && outside !== undefined) {
    const reason = `${tool.name} of ${outside} needs approval: it is outside the working folders (${[cwd, ...(options.directories ?? [])].join(', ')}); add its folder with --add-dir`;
    return { behavior: 'ask', reason };
  }
  const reason = `Permission to use ${tool.name} has not been granted (permission mode "${mode}"). ` +
    `Allow it with --allowedTools "${tool.name}" or run with --permission-mode ${tool.editsFiles ? 'acceptEdits' : 'bypassPermissions'}.`;
  return mode === 'dontAsk' ? { behavior: 'deny', reason } : { behavior: 'ask', reason };
}

/** The target path of a call when it lies outside the cwd and the extra folders. */
function outsideWorkingFolders(input: Record<string, unknown>, cwd: string, directories: string[]): string | undefined {
  const target = [input.file_path, input.path, input.notebook_path].find((v): v is string => typeof v === 'string');
  if (target === undefined) return undefined;
  const file = path.resolve(cwd, target);
  const inside = [cwd, ...directories].some((dir) => {
    const rel = path.relative(path.resolve(cwd, dir), file);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
  return inside ? undefined : file;
}

/** Renders a rule back to its text form. */
export function formatRule(rule: PermissionRule): string {
  return rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`;
}
