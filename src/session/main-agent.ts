/**
 * `--agent <name>` (the SDK's `agent`): the main thread runs as a defined agent. Its prompt
 * becomes the system prompt (with `appendSystemPrompt` and the working-folders note), its
 * `tools` / `disallowedTools` restrict the tools, and its model (unless 'inherit') is used.
 * Agents come from `agents` / `--agents` or the SDK's `initialize.agents`, so this applies at
 * the first prompt, once the client had its say.
 */
import type { AgentDefinition } from '../agent/subagent.ts';

/** The agent to apply, and what its system prompt is made of besides its own prompt. */
export interface MainAgent {
  name: string;
  appendSystemPrompt?: string;
  directories: string[];
}

/** What applying it changes. */
export interface AppliedAgent {
  system: string;
  model?: string;
  allows(toolName: string): boolean;
}

export function mainAgentOf(pending: MainAgent, agents: Record<string, AgentDefinition>): AppliedAgent {
  const definition = Object.hasOwn(agents, pending.name) ? agents[pending.name] : undefined;
  if (!definition) {
    const known = Object.keys(agents);
    throw new Error(
      `--agent ${pending.name}: no such agent ` +
        `(${known.length ? `defined: ${known.join(', ')}` : 'define agents with --agents or the agents option'})`,
    );
  }
  return {
    system: [definition.prompt, workingFoldersNote(pending.directories), pending.appendSystemPrompt ?? '']
      .filter(Boolean)
      .join('\n\n'),
    model: definition.model && definition.model !== 'inherit' ? definition.model : undefined,
    allows: (name) =>
      (!definition.tools || definition.tools.includes(name)) && !definition.disallowedTools?.includes(name),
  };
}

/** Names the `--add-dir` folders for the model. */
export function workingFoldersNote(directories: string[]): string {
  return directories.length
    ? `Additional working folders (you may read and edit files there too): ${directories.join(', ')}`
    : '';
}
