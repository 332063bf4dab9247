/**
 * Claude Code 2.1.332's task-list tools: TaskCreate, TaskGet, TaskList and TaskUpdate, with its schemas,
 * descriptions, result texts and `tool_use_result` shapes (measured against the real CLI: test/compat, tools/tasks*).
 * They work on the session's task list (../task-list.ts). TodoWrite stays as an accepted older name (todo-write.ts).
 */
import { objectSchema, optionalString, requireText } from '../input.ts';
import type { TaskList, TaskPatch, TaskRecord, TaskStatus } from '../task-list.ts';
import type { Tool, ToolContext, ToolResult } from '../types.ts';
import { ToolInputError } from '../types.ts';
import {
  TASK_CREATE_DESCRIPTION,
  TASK_GET_DESCRIPTION,
  TASK_LIST_DESCRIPTION,
  TASK_UPDATE_DESCRIPTION,
} from './task-descriptions.ts';

const STATUSES: readonly TaskStatus[] = ['pending', 'in_progress', 'completed'];
const ACTIVE_FORM = 'Present continuous form shown in spinner when in_progress (e.g., "Running tests")';
const text = (description: string) => ({ type: 'string', description });
const ids = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const record = (description: string) => ({
  type: 'object',
  propertyNames: { type: 'string' },
  additionalProperties: {},
  description,
});

const list = (context: ToolContext): TaskList => context.state.taskList;
/** `#1, #2` */
const numbers = (list: string[]) => list.map((id) => `#${id}`).join(', ');

function optionalIds(input: Record<string, unknown>, key: string): string[] | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((id) => typeof id === 'string'))
    throw new ToolInputError(`The parameter \`${key}\` must be an array of task IDs`);
  return value as string[];
}

function optionalRecord(input: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ToolInputError(`The parameter \`${key}\` must be an object`);
  return value as Record<string, unknown>;
}

/** The ids in `blockedBy` whose task is not completed (a completed blocker no longer blocks). */
async function openBlockers(tasks: TaskList, task: TaskRecord): Promise<string[]> {
  const blockers = await Promise.all(task.blockedBy.map((id) => tasks.get(id)));
  return task.blockedBy.filter((_, i) => blockers[i]?.status !== 'completed');
}

export const taskCreateTool: Tool = {
  name: 'TaskCreate',
  description: TASK_CREATE_DESCRIPTION,
  inputSchema: objectSchema(
    {
      subject: text('A brief title for the task'),
      description: text('What needs to be done'),
      activeForm: text(ACTIVE_FORM),
      metadata: record('Arbitrary metadata to attach to the task'),
    },
    ['subject', 'description'],
  ),
  // It changes the session's list only: no file, nothing outside (as TodoWrite).
  isReadOnly: () => true,
  needsNoPermission: true,
  async call(input, context): Promise<ToolResult> {
    const subject = requireText(input, 'subject');
    // Claude Code fills a missing description in with the subject.
    const description = optionalString(input, 'description') ?? subject;
    const activeForm = optionalString(input, 'activeForm');
    const metadata = optionalRecord(input, 'metadata');
    const id = await list(context).create({ subject, description, activeForm, metadata });
    return {
      content: `Task #${id} created successfully: ${subject}`,
      data: { task: { id, subject, description } },
    };
  },
};

export const taskGetTool: Tool = {
  name: 'TaskGet',
  description: TASK_GET_DESCRIPTION,
  inputSchema: objectSchema({ taskId: text('The ID of the task to retrieve') }, ['taskId']),
  isReadOnly: () => true,
  needsNoPermission: true,
  async call(input, context): Promise<ToolResult> {
    const tasks = list(context);
    const task = await tasks.get(requireText(input, 'taskId'));
    if (!task) return { content: 'Task not found', data: { task: null } };
    const blockedBy = await openBlockers(tasks, task);
    const lines = [`Task #${task.id}: ${task.subject}`, `Status: ${task.status}`, `Description: ${task.description}`];
    if (blockedBy.length) lines.push(`Blocked by: ${numbers(blockedBy)}`);
    if (task.blocks.length) lines.push(`Blocks: ${numbers(task.blocks)}`);
    const { id, subject, description, status, blocks } = task;
    return {
      content: lines.join('\n'),
      data: { task: { id, subject, description, status, blocks: [...blocks], blockedBy } },
    };
  },
};

export const taskListTool: Tool = {
  name: 'TaskList',
  description: TASK_LIST_DESCRIPTION,
  inputSchema: objectSchema({}),
  isReadOnly: () => true,
  needsNoPermission: true,
  async call(_input, context): Promise<ToolResult> {
    const all = await list(context).all();
    const done = new Set(all.filter((task) => task.status === 'completed').map((task) => task.id));
    const tasks = all.map(({ id, subject, status, owner, blockedBy }) => ({
      id,
      subject,
      status,
      ...(owner !== undefined ? { owner } : {}),
      blockedBy: blockedBy.filter((other) => !done.has(other)),
    }));
    const lines = tasks.map(
      (task) =>
        `#${task.id} [${task.status}] ${task.subject}` +
        (task.owner ? ` (${task.owner})` : '') +
        (task.blockedBy.length ? ` [blocked by ${numbers(task.blockedBy)}]` : ''),
    );
    return { content: lines.length ? lines.join('\n') : 'No tasks found', data: { tasks } };
  },
};

function statusOf(input: Record<string, unknown>): TaskStatus | 'deleted' | undefined {
  const value = input.status;
  if (value === undefined || value === null) return undefined;
  if (value === 'deleted' || STATUSES.includes(value as TaskStatus)) return value as TaskStatus | 'deleted';
  throw new ToolInputError('The parameter `status` must be one of pending, in_progress, completed or deleted');
}

/** TaskUpdate's answer: the text the model reads and the `tool_use_result`. */
function updated(taskId: string, fields: string[], statusChange?: { from: string; to: string }): ToolResult {
  return {
    content: `Updated task #${taskId} ${fields.join(', ')}`,
    data: { success: true, taskId, updatedFields: fields, ...(statusChange ? { statusChange } : {}) },
  };
}

/** The fields of `input` that differ from `task`, in Claude Code's order (status apart). */
function changes(input: Record<string, unknown>, task: TaskRecord): { patch: TaskPatch; fields: string[] } {
  const patch: TaskPatch = {};
  const fields: string[] = [];
  for (const key of ['subject', 'description', 'activeForm', 'owner'] as const) {
    const value = optionalString(input, key);
    if (value !== undefined && value !== task[key]) {
      patch[key] = value;
      fields.push(key);
    }
  }
  return { patch, fields };
}

export const taskUpdateTool: Tool = {
  name: 'TaskUpdate',
  description: TASK_UPDATE_DESCRIPTION,
  inputSchema: objectSchema(
    {
      taskId: text('The ID of the task to update'),
      subject: text('New subject for the task'),
      description: text('New description for the task'),
      activeForm: text(ACTIVE_FORM),
      status: {
        description: 'New status for the task',
        anyOf: [
          { type: 'string', enum: [...STATUSES] },
          { type: 'string', const: 'deleted' },
        ],
      },
      addBlocks: ids('Task IDs that this task blocks'),
      addBlockedBy: ids('Task IDs that block this task'),
      owner: text('New owner for the task'),
      metadata: record('Metadata keys to merge into the task. Set a key to null to delete it.'),
    },
    ['taskId'],
  ),
  isReadOnly: () => true,
  needsNoPermission: true,
  async call(input, context): Promise<ToolResult> {
    const taskId = requireText(input, 'taskId');
    const status = statusOf(input);
    const metadata = optionalRecord(input, 'metadata');
    const addBlocks = optionalIds(input, 'addBlocks');
    const addBlockedBy = optionalIds(input, 'addBlockedBy');
    const tasks = list(context);
    const task = await tasks.get(taskId);
    if (!task)
      return {
        content: 'Task not found',
        data: { success: false, taskId, updatedFields: [], error: 'Task not found' },
      };
    const { patch, fields } = changes(input, task);
    if (metadata !== undefined) fields.push('metadata');
    if (status === 'deleted') {
      const from = task.status;
      await tasks.delete(taskId);
      return updated(taskId, ['deleted'], { from, to: 'deleted' });
    }
    const statusChange = status !== undefined && status !== task.status ? { from: task.status, to: status } : undefined;
    if (statusChange) {
      patch.status = status as TaskStatus;
      fields.push('status');
    }
    if (fields.length) await tasks.update(taskId, patch, metadata);
    const newBlocks = (addBlocks ?? []).filter((id) => !task.blocks.includes(id));
    for (const id of newBlocks) await tasks.link(taskId, id);
    if (newBlocks.length) fields.push('blocks');
    const newBlockers = (addBlockedBy ?? []).filter((id) => !task.blockedBy.includes(id));
    for (const id of newBlockers) await tasks.link(id, taskId);
    if (newBlockers.length) fields.push('blockedBy');
    return updated(taskId, fields, statusChange);
  },
};

/** The task-list tools, in the order `system/init` lists them. */
export const taskTools: readonly Tool[] = [taskCreateTool, taskGetTool, taskListTool, taskUpdateTool];
