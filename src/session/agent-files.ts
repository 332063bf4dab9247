/**
 * Agents from Markdown files, as Claude Code loads them: `$AGENTPIPE_HOME/agents/*.md` (the
 * `user` setting source) and `<cwd>/.agentpipe/agents/*.md` (`project`; wins over user on a
 * name clash). YAML frontmatter gives `name` (default: the file name), `description`
 * (required), `tools` / `disallowedTools` (comma-separated or a list) and `model`; the body is
 * the agent's prompt. A malformed file is skipped with a warning naming it.
 */
import { errorCode, errorMessage } from '../process/errors.ts';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { GENERAL_PURPOSE, type AgentDefinition } from '../agent/subagent.ts';
import { agentpipeHome } from './paths.ts';
import type { SettingSource } from './setting-sources.ts';
import { frontmatterOf } from './frontmatter.ts';

/** The agents folder of a setting source (`local` has none). */
export function agentsFolder(
  source: SettingSource,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  if (source === 'user') return path.join(agentpipeHome(env), 'agents');
  if (source === 'project') return path.join(cwd, '.agentpipe', 'agents');
  return undefined;
}

/** The agent files of the allowed sources, user ones first (a quick synchronous look: usually there are none). */
export function agentFiles(
  sources: readonly SettingSource[] | undefined,
  cwd: string,
  warn: (message: string) => void,
  env: Record<string, string | undefined> = process.env,
): string[] {
  const out: string[] = [];
  for (const source of (['user', 'project'] as const).filter((s) => sources?.includes(s))) {
    const folder = agentsFolder(source, cwd, env)!;
    try {
      out.push(
        ...readdirSync(folder)
          .filter((n) => n.endsWith('.md'))
          .sort()
          .map((n) => path.join(folder, n)),
      );
    } catch (error) {
      // No folder there (a home that is a file has none either).
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        warn(`cannot read the agents folder ${folder}: ${errorMessage(error)}`);
    }
  }
  return out;
}

/** The agents of these files; a later file wins on a name clash. Never throws. */
export async function readAgentFiles(
  files: string[],
  warn: (message: string) => void,
): Promise<Record<string, AgentDefinition>> {
  const out: Record<string, AgentDefinition> = {};
  for (const file of files) {
    try {
      const agent = await parseAgentFile(await readFile(file, 'utf8'), path.basename(file, '.md'));
      out[agent.name] = agent.definition;
    } catch (error) {
      warn(`skipped the agent file ${file}: ${errorMessage(error)}`);
    }
  }
  return out;
}

/**
 * A session's loader: looks for the files now, reads them on the first call (later calls share
 * it) and hands `define` the agents whose names are not taken in `defined` (`agents`,
 * `--agents` and `initialize.agents` win; the built-in general-purpose does not). Returns
 * undefined when there are no files, so callers can answer at once.
 */
export function agentFilesLoader(
  sources: readonly SettingSource[] | undefined,
  cwd: string,
  defined: Record<string, AgentDefinition>,
  define: (agents: Record<string, AgentDefinition>) => void,
  warn: (message: string) => void,
): () => Promise<void> | undefined {
  const files = agentFiles(sources, cwd, warn);
  let loading: Promise<void> | undefined;
  return () =>
    files.length
      ? (loading ??= readAgentFiles(files, warn).then((read) => {
          const fresh = Object.fromEntries(
            Object.entries(read).filter(([name]) => !Object.hasOwn(defined, name) || defined[name] === GENERAL_PURPOSE),
          );
          if (Object.keys(fresh).length) define(fresh);
        }))
      : undefined;
}

/** Parses one agent file; throws a clear error when it is malformed. */
export async function parseAgentFile(
  text: string,
  fallbackName: string,
): Promise<{ name: string; definition: AgentDefinition }> {
  const { meta: fields, body } = await frontmatterOf(text);
  if (!fields) throw new Error('no YAML frontmatter (the file must start with a "---" line and close it with another)');
  const name = fields.name ?? fallbackName;
  if (typeof name !== 'string' || !name.trim()) throw new Error('"name" must be a non-empty string');
  if (typeof fields.description !== 'string' || !fields.description.trim())
    throw new Error('"description" is required (a string)');
  if (fields.model !== undefined && fields.model !== null && typeof fields.model !== 'string')
    throw new Error('"model" must be a string');
  const definition: AgentDefinition = {
    description: fields.description.trim(),
    prompt: body,
  };
  const tools = toolList(fields.tools, 'tools');
  const disallowed = toolList(fields.disallowedTools, 'disallowedTools');
  if (tools) definition.tools = tools;
  if (disallowed) definition.disallowedTools = disallowed;
  if (typeof fields.model === 'string' && fields.model.trim()) definition.model = fields.model.trim();
  return { name: name.trim(), definition };
}

/** `Read, Grep` or `[Read, Grep]`; absent, empty or `*` means no restriction. */
function toolList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || items.some((t) => typeof t !== 'string'))
    throw new Error(`"${field}" must be a comma-separated string or a list of tool names`);
  const names = items.map((t: string) => t.trim()).filter(Boolean);
  return names.length && !names.includes('*') ? names : undefined;
}
