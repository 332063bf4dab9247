/**
 * What the built-in tools of one session remember between calls, one typed field per concern
 * (once a `Map<string, unknown>` under magic keys). The session owns one; every call's
 * `ToolContext.state` is that one.
 */
import { TaskList } from './task-list.ts';

/** One item of TodoWrite's list. */
export interface Todo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  activeForm: string;
}

/** Checkpoints per user message uuid: file → content before (null: the file did not exist). */
export interface Checkpoints {
  /** The user message whose changes are being recorded now. */
  current?: string;
  byMessage: Map<string, Map<string, string | null>>;
}

/** A file the model has seen: its mtime then, and whether only by changing it unread (read-state.ts). */
export interface FileSeen {
  mtimeMs: number;
  notInContext?: boolean;
}

export class ToolState {
  /** TodoWrite's current list. */
  todos: Todo[] = [];
  /**
   * The task list of TaskCreate, TaskGet, TaskList and TaskUpdate: in memory unless the session gives it a file
   * (`$AGENTPIPE_HOME/tasks/<session_id>.json`, task-list.ts), which resume, continue and fork carry on.
   */
  taskList = new TaskList();
  /** Files the model has seen, by real path (Edit and Write refuse one that changed since: read-state.ts). */
  readonly fileReads = new Map<string, FileSeen>();
  /** What files held before the session changed them, per user message (`rewind_files`: checkpoints.ts). */
  readonly checkpoints: Checkpoints = { byMessage: new Map() };
  /** Subagents running now, by the id of their Task call (what `stop_task` names). */
  readonly runningTasks = new Map<string, AbortController>();
  /**
   * The real path of the folder the last Bash call ended in, when it is not the session's cwd: where the next one
   * starts (shell/shell-cwd.ts). Judged again before each call.
   */
  shellCwd: string | undefined = undefined;
  /** Whether the session said that plan mode's check of commands is unavailable (claude-denial.ts). */
  checkUnavailableSaid = false;
  /** Scratch space for custom tools, by a key of their choosing. */
  readonly custom = new Map<string, unknown>();
}
