/** TodoWrite: replaces the session's task list (the plan shown to users). */
import { objectSchema } from '../input.ts';
import type { Todo } from '../state.ts';
import type { Tool, ToolResult } from '../types.ts';
import { ToolInputError } from '../types.ts';

export type { Todo } from '../state.ts';

const STATUSES: ReadonlySet<unknown> = new Set(['pending', 'in_progress', 'completed']);

function isTodo(value: unknown): value is Todo {
  if (typeof value !== 'object' || value === null) return false;
  const todo = value as Record<string, unknown>;
  return typeof todo.content === 'string' && STATUSES.has(todo.status) && typeof todo.activeForm === 'string';
}

/** What TodoWrite answers, in Claude Code's words (the harnesses answer a wrapped agent's plan the same way). */
export const todoWriteAnswer =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your ' +
  'progress. Please proceed with the current tasks if applicable';

export const todoWriteTool: Tool = {
  name: 'TodoWrite',
  description:
    'Replaces the task list for this session. Each todo has content, status (pending, in_progress, completed) ' +
    'and activeForm.',
  inputSchema: objectSchema(
    {
      todos: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            content: { type: 'string' },
            status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            activeForm: { type: 'string' },
          },
          required: ['content', 'status', 'activeForm'],
        },
      },
    },
    ['todos'],
  ),
  isReadOnly: () => true,
  async call(input, context): Promise<ToolResult> {
    const given: unknown = input.todos;
    if (!Array.isArray(given)) throw new ToolInputError('The required parameter `todos` must be an array');
    const todos = given.map((todo: unknown, i): Todo => {
      if (!isTodo(todo)) {
        throw new ToolInputError(
          `todos[${i}] needs content, activeForm (strings) and status (pending, in_progress or completed)`,
        );
      }
      return todo;
    });
    const oldTodos = context.state.todos;
    context.state.todos = todos;
    return {
      content: todoWriteAnswer,
      data: { oldTodos, newTodos: todos },
    };
  },
};
