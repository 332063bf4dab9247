/**
 * The session's task list (Claude Code 2.1.332's TaskCreate, TaskGet, TaskList and TaskUpdate work on it): tasks
 * numbered from 1 (a deleted task's number is never given again), each with a status, an owner, dependencies both
 * ways (`blocks`, `blockedBy`) and metadata. A session that keeps a transcript keeps its list in
 * `$AGENTPIPE_HOME/tasks/<session_id>.json` (replaced whole at each change, through a temporary file), so a resumed
 * or continued session goes on with it and a fork starts with a copy (`copyTaskList`).
 */
import { copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../process/errors.ts';

/** What a task can be; `deleted` (TaskUpdate) removes it. */
export type TaskStatus = 'pending' | 'in_progress' | 'completed';

/** One task, as kept (and in Claude Code's key order). */
export interface TaskRecord {
  id: string;
  subject: string;
  description: string;
  activeForm?: string;
  status: TaskStatus;
  owner?: string;
  /** Tasks that cannot start until this one is completed. */
  blocks: string[];
  /** Tasks that must be completed before this one can start. */
  blockedBy: string[];
  metadata?: Record<string, unknown>;
}

/** The fields a TaskUpdate may change in place. */
export type TaskPatch = Partial<Pick<TaskRecord, 'subject' | 'description' | 'activeForm' | 'status' | 'owner'>>;

/** The saved file's schema (zod loads with the first read of a saved list, not at start-up). */
async function fileSchema() {
  const { z } = await import('zod');
  const taskSchema = z.object({
    id: z.string(),
    subject: z.string(),
    description: z.string(),
    activeForm: z.string().optional(),
    status: z.enum(['pending', 'in_progress', 'completed']),
    owner: z.string().optional(),
    blocks: z.array(z.string()),
    blockedBy: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()).optional(),
  });

  return z.object({
    version: z.literal(1),
    highWater: z.number().int().nonnegative(),
    tasks: z.array(taskSchema),
  });
}

/** Where a session's task list is kept. */
export function taskListFile(home: string, sessionId: string): string {
  return path.join(home, 'tasks', `${sessionId}.json`);
}

/** A fork starts with the list of the session it forked (nothing to copy when that one had none). */
export async function copyTaskList(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true });
  await copyFile(from, to).catch((error: unknown) => {
    if (errorCode(error) !== 'ENOENT') throw error;
  });
}

const byNumber = (a: TaskRecord, b: TaskRecord) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id);

/** The list: in memory, and in `file` when given (read at the first use, written after each change). */
export class TaskList {
  readonly #file: string | undefined;
  #tasks = new Map<string, TaskRecord>();
  /** The highest number ever given (deleted tasks included). */
  #highWater = 0;
  #loaded: Promise<void> | undefined;
  /** Changes are written one after the other, in order. */
  #writing: Promise<void> = Promise.resolve();

  constructor(file?: string) {
    this.#file = file;
  }

  /** Every task, by number. */
  async all(): Promise<TaskRecord[]> {
    await this.#load();
    return [...this.#tasks.values()].sort(byNumber);
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    await this.#load();
    return this.#tasks.get(id);
  }

  /** Adds a pending task; returns its number. */
  async create(fields: Pick<TaskRecord, 'subject' | 'description' | 'activeForm' | 'metadata'>): Promise<string> {
    await this.#load();
    const id = String(++this.#highWater);
    this.#tasks.set(id, {
      id,
      subject: fields.subject,
      description: fields.description,
      ...(fields.activeForm !== undefined ? { activeForm: fields.activeForm } : {}),
      status: 'pending',
      blocks: [],
      blockedBy: [],
      ...(fields.metadata !== undefined ? { metadata: fields.metadata } : {}),
    });
    await this.#save();
    return id;
  }

  /** Changes a task's fields and merges `metadata` into its own (a key set to null is removed). */
  async update(id: string, patch: TaskPatch, metadata?: Record<string, unknown>): Promise<void> {
    await this.#load();
    const task = this.#tasks.get(id);
    if (!task) return;
    Object.assign(task, patch);
    if (metadata !== undefined) {
      const merged = Object.fromEntries(
        Object.entries({ ...task.metadata, ...metadata }).filter(([, value]) => value !== null),
      );
      task.metadata = merged;
    }
    await this.#save();
  }

  /** `from` blocks `to` (and `to` is blocked by `from`); a number with no task is kept as given. */
  async link(from: string, to: string): Promise<void> {
    await this.#load();
    const blocker = this.#tasks.get(from);
    const blocked = this.#tasks.get(to);
    if (blocker && !blocker.blocks.includes(to)) blocker.blocks.push(to);
    if (blocked && !blocked.blockedBy.includes(from)) blocked.blockedBy.push(from);
    await this.#save();
  }

  /** Removes a task and every dependency on it; false when there was none. */
  async delete(id: string): Promise<boolean> {
    await this.#load();
    if (!this.#tasks.delete(id)) return false;
    for (const task of this.#tasks.values()) {
      task.blocks = task.blocks.filter((other) => other !== id);
      task.blockedBy = task.blockedBy.filter((other) => other !== id);
    }
    await this.#save();
    return true;
  }

  #load(): Promise<void> {
    this.#loaded ??= this.#read();
    return this.#loaded;
  }

  async #read(): Promise<void> {
    if (!this.#file) return;
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      throw error;
    }
    let parsed;
    try {
      parsed = (await fileSchema()).safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) throw new Error(`the task list ${this.#file} is not one agentpipe wrote`);
    this.#highWater = parsed.data.highWater;
    for (const task of parsed.data.tasks) this.#tasks.set(task.id, task);
  }

  #save(): Promise<void> {
    const file = this.#file;
    if (!file) return Promise.resolve();
    const saved = { version: 1, highWater: this.#highWater, tasks: [...this.#tasks.values()].sort(byNumber) };
    const text = `${JSON.stringify(saved, null, 2)}\n`;
    const write = async () => {
      await mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, file);
    };
    this.#writing = this.#writing.then(write, write);
    return this.#writing;
  }
}
