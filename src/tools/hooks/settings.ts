/**
 * Hooks, permission rules and MCP servers from a settings file or JSON string (`--settings`, the
 * setting sources), in Claude Code's format:
 * `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}`.
 * Anything malformed is a clear error naming where it is.
 */
import { errorCode, errorMessage } from '../../process/errors.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ruleProblem } from './settings-check.ts';
import { HOOK_EVENTS, type HookEvent, type HookOnFailure } from './types.ts';
import { isRecord } from '../../process/guards.ts';

/** One configured command hook. */
export interface CommandHookConfig {
  type: 'command';
  command: string;
  /** Seconds. */ timeout?: number;
  /** What the hook's failure does (`HookOnFailure`); `"continue"` when not set. */
  onFailure?: HookOnFailure;
}
/** The hooks part of a settings file. */
export type HookSettings = Partial<Record<HookEvent, Array<{ matcher?: string; hooks: CommandHookConfig[] }>>>;

/** What agentpipe uses of a settings file: its hooks, its permission rules and its MCP servers. */
export interface Settings {
  hooks: HookSettings;
  permissions: { allow: string[]; deny: string[] };
  /** `mcpServers`, as `--mcp-config` has them (each entry is checked where the session opens: mcp/config-schema.ts). */
  mcpServers?: Record<string, unknown>;
  /** The whole object as written (`get_settings` shows it). */
  raw: Record<string, unknown>;
  /** What was left out and why, one line each (a malformed permission rule, naming `label` and the list). */
  warnings: string[];
}

/** Reads `--settings` (a file path or a JSON object string) and validates its hooks. */
export function loadHookSettings(value: string | Record<string, unknown>, cwd: string): HookSettings {
  return loadSettings(value, cwd).hooks;
}

/**
 * Reads settings (a file path, a JSON object string or the parsed object) and validates its
 * hooks and `permissions: {allow: [], deny: []}`. Errors name `label` (the flag or the file).
 */
export function loadSettings(value: string | Record<string, unknown>, cwd: string, label = '--settings'): Settings {
  let settings: unknown = value;
  if (typeof value === 'string') {
    const inline = value.trim().startsWith('{');
    const text = inline ? value : readSettingsFile(path.resolve(cwd, value), label);
    try {
      settings = JSON.parse(text);
    } catch (error) {
      // A file is named (the label of a settings source names it already).
      const named = inline || label.includes(value) ? label : `${label} ${value}`;
      throw new Error(`${named}: not valid JSON: ${errorMessage(error)}`);
    }
  }
  if (!isRecord(settings)) throw new Error(`${label}: expected a JSON object`);
  if (settings.mcpServers !== undefined && !isRecord(settings.mcpServers))
    throw new Error(`${label}: "mcpServers" must be an object of MCP server configs by name`);
  const warnings: string[] = [];
  return {
    hooks: validateHooks(settings.hooks, label),
    permissions: validatePermissions(settings.permissions, label, warnings),
    ...(settings.mcpServers !== undefined ? { mcpServers: settings.mcpServers } : {}),
    raw: settings,
    warnings,
  };
}

function readSettingsFile(file: string, label: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${label} ${file}: ` + `${errorCode(error) === 'ENOENT' ? 'no such file' : errorMessage(error)}`);
  }
}

/** The rule lists; a malformed rule is skipped with a line on `warnings`, the rest are in effect (as Claude Code). */
function validatePermissions(permissions: unknown, label: string, warnings: string[]): Settings['permissions'] {
  if (permissions === undefined) return { allow: [], deny: [] };
  if (!isRecord(permissions))
    throw new Error(`${label}: "permissions" must be an object {"allow": [...], "deny": [...]}`);
  const list = (key: 'allow' | 'deny'): string[] => {
    const value = permissions[key];
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((rule) => typeof rule === 'string'))
      throw new Error(`${label}: permissions.${key} must be an array of rule strings`);
    return value.filter((rule: string) => {
      const problem = ruleProblem(rule);
      if (problem)
        warnings.push(`${label} (permissions.${key}): invalid permission rule "${rule}" skipped: ${problem}`);
      return !problem;
    });
  };
  return { allow: list('allow'), deny: list('deny') };
}

function validateHooks(hooks: unknown, label: string): HookSettings {
  if (hooks === undefined) return {};
  if (!isRecord(hooks)) throw new Error(`${label}: "hooks" must be an object of events`);
  const out: HookSettings = {};
  for (const [event, matchers] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      throw new Error(`${label}: unknown hook event "${event}"; expected one of ${HOOK_EVENTS.join(', ')}`);
    }
    if (!Array.isArray(matchers)) throw new Error(`${label}: hooks.${event} must be an array of {matcher, hooks}`);
    out[event as HookEvent] = matchers.map((entry: unknown, i) => {
      const where = `hooks.${event}[${i}]`;
      if (!isRecord(entry) || !Array.isArray(entry.hooks)) throw new Error(`${label}: ${where} needs a "hooks" array`);
      if (entry.matcher !== undefined && typeof entry.matcher !== 'string')
        throw new Error(`${label}: ${where}.matcher must be a string`);
      if (entry.matcher) checkRegex(entry.matcher, where, label);
      const list = entry.hooks.map((hook: unknown, j): CommandHookConfig => {
        if (!isRecord(hook) || hook.type !== 'command' || typeof hook.command !== 'string' || !hook.command.trim()) {
          throw new Error(`${label}: ${where}.hooks[${j}] must be {"type": "command", "command": "..."}`);
        }
        if (hook.timeout !== undefined && (typeof hook.timeout !== 'number' || !(hook.timeout > 0))) {
          throw new Error(`${label}: ${where}.hooks[${j}].timeout must be a number of seconds above 0`);
        }
        if (hook.onFailure !== undefined && hook.onFailure !== 'continue' && hook.onFailure !== 'block') {
          throw new Error(`${label}: ${where}.hooks[${j}].onFailure must be "continue" or "block"`);
        }
        return {
          type: 'command',
          command: hook.command,
          timeout: hook.timeout as number | undefined,
          ...(hook.onFailure ? { onFailure: hook.onFailure } : {}),
        };
      });
      return { matcher: entry.matcher as string | undefined, hooks: list };
    });
  }
  return out;
}

function checkRegex(matcher: string, where: string, label: string): void {
  if (matcher === '*') return;
  try {
    new RegExp(matcher);
  } catch {
    throw new Error(`${label}: ${where}.matcher is not a valid regular expression: ${matcher}`);
  }
}
