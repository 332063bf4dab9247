/** `--settings` (hooks), `--agents` (subagents) and the tool progress variables → session options. */
import { errorMessage } from '../process/errors.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateAgents } from '../agent/task-tool.ts';
import { loadHookSettings } from '../tools/hooks/settings.ts';
import type { SessionOptions } from '../session/options.ts';

type Extras = Pick<SessionOptions, 'settings' | 'agents' | 'toolProgressThresholdMs' | 'toolProgressIntervalMs'>;

/** Throws plain errors with the flag's name; the caller turns them into usage errors. */
export function agentOptionsFromFlags(
  flags: { settings?: unknown; agents?: unknown; [flag: string]: unknown },
  cwd: string,
  env = process.env,
): Extras {
  const out: Extras = {};
  if (typeof flags.settings === 'string') {
    loadHookSettings(flags.settings, cwd); // fail early, with the flag's name
    out.settings = flags.settings.trim().startsWith('{') ? flags.settings : path.resolve(cwd, flags.settings);
  }
  if (typeof flags.agents === 'string')
    out.agents = validateAgents(parseJsonArg(flags.agents, '--agents', cwd), '--agents');
  const threshold = msFromEnv(env, 'AGENTPIPE_TOOL_PROGRESS_MS');
  const interval = msFromEnv(env, 'AGENTPIPE_TOOL_PROGRESS_INTERVAL_MS');
  if (threshold !== undefined) out.toolProgressThresholdMs = threshold;
  if (interval !== undefined || threshold !== undefined) out.toolProgressIntervalMs = interval ?? threshold;
  return out;
}

function parseJsonArg(value: string, flag: string, cwd: string): unknown {
  let text = value;
  if (!value.trim().startsWith('{')) {
    try {
      text = readFileSync(path.resolve(cwd, value), 'utf8');
    } catch {
      throw new Error(`${flag}: expected a JSON object or a file holding one; no such file: ${value}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${flag}: not valid JSON: ${errorMessage(error)}`);
  }
}

function msFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 10)
    throw new Error(`${name} must be a number of milliseconds, at least 10 (got ${JSON.stringify(raw)})`);
  return n;
}
