/**
 * The flags of the official SDK that shape requests and the session's surroundings → session
 * options: --fallback-model, --effort, --thinking, --thinking-display, --betas, --add-dir,
 * --setting-sources, --trust-project, --strict-mcp-config, --agent, --debug, --debug-file. Throws plain errors naming
 * the flag.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SessionOptions } from '../session/options.ts';
import { parseSettingSources, SETTING_SOURCES } from '../session/setting-sources.ts';
import type { ThinkingConfig } from '../model/types.ts';
import type { CliFlags } from './flags.ts';

type ModelFlagOptions = Pick<
  SessionOptions,
  | 'fallbackModel'
  | 'effort'
  | 'thinking'
  | 'betas'
  | 'additionalDirectories'
  | 'settingSources'
  | 'trustProject'
  | 'strictMcpConfig'
  | 'agent'
  | 'debug'
  | 'debugFile'
>;

export function modelFlagOptions(flags: CliFlags, cwd: string): ModelFlagOptions {
  const out: ModelFlagOptions = {};
  if (typeof flags.fallbackModel === 'string') {
    const fallbacks = flags.fallbackModel.split(',').map((m) => m.trim());
    if (flags.model && fallbacks.includes(flags.model))
      throw new Error('Fallback model cannot be the same as the main model (--fallback-model equals --model)');
    out.fallbackModel = flags.fallbackModel;
  }
  if (flags.effort !== undefined) out.effort = flags.effort;
  const thinking = thinkingOf(flags);
  if (thinking) out.thinking = thinking;
  if (typeof flags.betas === 'string')
    out.betas = flags.betas
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean);
  if (flags.addDir) {
    out.additionalDirectories = flags.addDir.map((dir) => {
      const resolved = path.resolve(cwd, dir);
      if (!existsSync(resolved) || !statSync(resolved).isDirectory())
        throw new Error(`--add-dir ${dir}: no such folder`);
      return resolved;
    });
  }
  // Without the flag the CLI reads every source, as Claude Code does, a project's own only in a trusted folder; the
  // flag (the official SDK's settingSources) naming project or local trusts them, as --trust-project does.
  out.settingSources =
    typeof flags.settingSources === 'string' ? parseSettingSources(flags.settingSources) : [...SETTING_SOURCES];
  if (typeof flags.trustProject === 'boolean') out.trustProject = flags.trustProject;
  else if (typeof flags.settingSources !== 'string') out.trustProject = false;
  if (flags.strictMcpConfig === true) out.strictMcpConfig = true;
  if (typeof flags.agent === 'string') out.agent = flags.agent;
  if (flags.debug !== undefined) out.debug = flags.debug;
  if (typeof flags.debugFile === 'string') out.debugFile = path.resolve(cwd, flags.debugFile);
  return out;
}

/** `--thinking` (with `--max-thinking-tokens` as the budget of `enabled`) and `--thinking-display`. */
function thinkingOf(flags: CliFlags): ThinkingConfig | undefined {
  const display = flags.thinkingDisplay !== undefined ? { display: flags.thinkingDisplay } : {};
  const budget = flags.maxThinkingTokens !== undefined ? { budgetTokens: flags.maxThinkingTokens } : {};
  switch (flags.thinking) {
    case 'disabled':
      return { type: 'disabled' };
    case 'adaptive':
      return { type: 'adaptive', ...display };
    case 'enabled':
      return { type: 'enabled', ...budget, ...display };
    default:
      if (flags.thinkingDisplay === undefined) return undefined;
      return flags.maxThinkingTokens !== undefined
        ? { type: 'enabled', ...budget, ...display }
        : { type: 'adaptive', ...display };
  }
}
