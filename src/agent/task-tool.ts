/**
 * The `Task` tool (`Agent` to the model, as Claude Code offers it): the model hands a task to a
 * subagent by name (`subagent_type`). The subagent's final text is the tool result. The list of
 * agents can grow while the session runs (`initialize.agents`), so the description is computed
 * when asked for.
 */
import { isArray, isRecord } from '../process/guards.ts';
import { requireString } from '../tools/input.ts';
import type { ToolResult } from '../tools/types.ts';
import { runSubagent, type AgentDefinition } from './subagent.ts';
import type { AgentTool } from './tool-runner.ts';

export function createTaskTool(agents: () => Record<string, AgentDefinition>): AgentTool {
  return {
    name: 'Task',
    // Claude Code 2.1.332 offers it to the model as Agent; Task stays its name in system/init, rules and hooks.
    modelName: 'Agent',
    get description() {
      const list = Object.entries(agents())
        .map(([name, a]) => `- ${name}: ${a.description}`)
        .join('\n');
      return (
        `Launch a subagent to carry out a task on its own and report back. Available agents (subagent_type):\n` +
        `${list}`
      );
    },
    inputSchema: {
      type: 'object',
      properties: {
        description: { type: 'string', description: 'A short (3-5 word) description of the task' },
        prompt: { type: 'string', description: 'The task for the agent to perform' },
        subagent_type: { type: 'string', description: 'The type of agent to use' },
      },
      required: ['description', 'prompt', 'subagent_type'],
      additionalProperties: false,
    },
    // The subagent's own tool calls go through the permission checks one by one.
    isReadOnly: () => true,
    async call(): Promise<ToolResult> {
      return { content: 'Task can only run inside an agent loop', isError: true };
    },
    async callInAgent(input, _context, parent): Promise<ToolResult> {
      const prompt = requireString(input, 'prompt');
      const type = requireString(input, 'subagent_type');
      const all = agents();
      const definition = Object.hasOwn(all, type) ? all[type] : undefined;
      if (!definition)
        return { content: `Unknown subagent_type "${type}". Available: ${Object.keys(all).join(', ')}`, isError: true };
      const description =
        typeof input.description === 'string' && input.description.trim() ? input.description.trim() : type;
      return runSubagent(parent.ctx, parent.run, type, definition, prompt, _context.toolUseId, description);
    },
  };
}

/** Checks agent definitions from `--agents`, the library or `initialize.agents`. */
export function validateAgents(value: unknown, source = 'agents'): Record<string, AgentDefinition> {
  if (!isRecord(value)) throw new Error(`${source}: expected an object of {"name": {"description", "prompt"}}`);
  const out: Record<string, AgentDefinition> = {};
  for (const [name, d] of Object.entries(value)) {
    if (!isRecord(d) || typeof d.description !== 'string' || typeof d.prompt !== 'string') {
      throw new Error(`${source}: agent "${name}" needs a "description" and a "prompt" (strings)`);
    }
    const toolNames = (field: 'tools' | 'disallowedTools'): string[] | undefined => {
      const names = d[field];
      if (names === undefined) return undefined;
      if (!isArray(names) || !names.every((t): t is string => typeof t === 'string'))
        throw new Error(`${source}: agent "${name}": "${field}" must be an array of tool names`);
      return names;
    };
    if (d.model !== undefined && typeof d.model !== 'string')
      throw new Error(`${source}: agent "${name}": "model" must be a string`);
    out[name] = {
      description: d.description,
      prompt: d.prompt,
      tools: toolNames('tools'),
      disallowedTools: toolNames('disallowedTools'),
      model: d.model,
    };
  }
  return out;
}
