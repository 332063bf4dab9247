/**
 * The v2 shapes `agentpipe app-server` writes (codex-cli 0.169.0's `codex app-server
 * generate-ts`): thread items, turns and threads, with every field codex writes (nullable ones as
 * `null`), so clients that read codex's frames read these. The tests validate each frame against the
 * JSON Schema the pinned codex generates.
 */
import type { CodexItem, FileChange, ItemStatus } from '../items.ts';

/** A v2 thread item (`ThreadItem`). */
export type V2Item = Record<string, unknown> & { type: string; id: string };

const status = (s: ItemStatus): string => s;

function kindOf(change: FileChange): Record<string, unknown> {
  return change.kind === 'update' ? { type: 'update', move_path: null } : { type: change.kind };
}

/** An item in v2 form; `times` adds its lifecycle times as codex does in notifications. */
export function v2Item(item: CodexItem, times: { startedAtMs?: number; completedAtMs?: number | null } = {}): V2Item {
  const lifecycle = {
    ...(times.startedAtMs !== undefined ? { startedAtMs: times.startedAtMs } : {}),
    ...(times.completedAtMs !== undefined ? { completedAtMs: times.completedAtMs } : {}),
  };
  switch (item.kind) {
    case 'userMessage':
      return {
        type: 'userMessage',
        id: item.id,
        clientId: null,
        content: item.content.map((p) =>
          p.type === 'text' ? { type: 'text', text: p.text, text_elements: [] } : { type: 'image', url: p.url },
        ),
        ...lifecycle,
      };
    case 'agentMessage':
      return { ...v2AgentMessage(item), ...lifecycle };
    case 'reasoning':
      return { type: 'reasoning', id: item.id, summary: item.text ? [item.text] : [], content: [], ...lifecycle };
    case 'commandExecution':
      return { ...v2Command(item), ...lifecycle };
    case 'fileChange':
      return {
        type: 'fileChange',
        id: item.id,
        changes: item.changes.map((c) => ({ path: c.path, kind: kindOf(c), diff: c.diff })),
        status: status(item.status),
        ...lifecycle,
      };
    case 'mcpToolCall':
      return {
        type: 'mcpToolCall',
        id: item.id,
        server: item.server,
        tool: item.tool,
        status: item.status === 'declined' ? 'failed' : status(item.status),
        arguments: item.arguments ?? null,
        appContext: null,
        mcpAppUi: null,
        pluginId: null,
        readOnlyHint: null,
        result: item.result
          ? { content: item.result.content, structuredContent: item.result.structuredContent ?? null, _meta: null }
          : null,
        error: item.error !== null ? { message: item.error } : null,
        durationMs: item.durationMs,
        ...lifecycle,
      };
    case 'webSearch':
      return {
        type: 'webSearch',
        id: item.id,
        query: item.query,
        action: { type: 'search', query: item.query },
        results: null,
        ...lifecycle,
      };
  }
}

/** A turn's states. */
export type TurnStatus = 'inProgress' | 'completed' | 'interrupted' | 'failed';

/** What a v2 `Turn` is made of. */
export interface TurnInfo {
  id: string;
  items: V2Item[];
  /** `notLoaded` (turn/start), `summary` (turn/completed: the final message), `full` (history). */
  itemsView: 'notLoaded' | 'summary' | 'full';
  status: TurnStatus;
  error: string | null;
  startedAt: number | null;
  completedAt: number | null;
  durationMs: number | null;
}

export function v2Turn(t: TurnInfo): Record<string, unknown> {
  return {
    id: t.id,
    rootTurnId: t.id,
    items: t.items,
    itemsView: t.itemsView,
    status: t.status,
    error: t.error === null ? null : { message: t.error, codexErrorInfo: null, additionalDetails: null },
    startedAt: t.startedAt,
    completedAt: t.completedAt,
    durationMs: t.durationMs,
  };
}

/** What a v2 `Thread` is made of. */
export interface ThreadInfo {
  id: string;
  cwd: string;
  preview: string;
  name: string | null;
  model: string | null;
  modelProvider: string;
  reasoningEffort: string | null;
  ephemeral: boolean;
  forkedFromId: string | null;
  /** Seconds. */
  createdAt: number;
  updatedAt: number;
  status: { type: 'notLoaded' } | { type: 'idle' } | { type: 'active'; activeFlags: string[] };
  path: string | null;
  cliVersion: string;
  originator: string | null;
  turns: Record<string, unknown>[];
}

export function v2Thread(t: ThreadInfo): Record<string, unknown> {
  return {
    id: t.id,
    sessionId: t.id,
    forkedFromId: t.forkedFromId,
    parentThreadId: null,
    preview: t.preview,
    ephemeral: t.ephemeral,
    section: null,
    sectionEnteredAt: null,
    projectId: null,
    historyMode: 'legacy',
    modelProvider: t.modelProvider,
    model: t.model,
    reasoningEffort: t.reasoningEffort,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    recencyAt: t.updatedAt,
    status: t.status,
    path: t.path,
    cwd: t.cwd,
    cliVersion: t.cliVersion,
    originator: t.originator,
    source: 'appServer',
    threadSource: null,
    agentNickname: null,
    agentRole: null,
    gitInfo: null,
    name: t.name,
    turns: t.turns,
  };
}

/** Token counts in v2 form (`TokenUsageBreakdown`). */
export function v2Usage(u: {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}): Record<string, number> {
  return {
    totalTokens: u.input_tokens + u.output_tokens,
    inputTokens: u.input_tokens,
    cachedInputTokens: u.cached_input_tokens,
    cacheWriteInputTokens: u.cache_write_input_tokens,
    outputTokens: u.output_tokens,
    reasoningOutputTokens: u.reasoning_output_tokens,
  };
}

/** A command run, its output once it ended. */
function v2Command(item: Extract<CodexItem, { kind: 'commandExecution' }>): V2Item {
  return {
    type: 'commandExecution',
    id: item.id,
    pluginId: null,
    scriptPath: null,
    command: item.command,
    cwd: item.cwd,
    processId: null,
    source: 'agent',
    status: status(item.status),
    commandActions: [{ type: 'unknown', command: item.command }],
    aggregatedOutput: item.status === 'inProgress' ? null : item.output,
    exitCode: item.exitCode,
    durationMs: item.durationMs,
  };
}

/** An answer of the agent, with the fields codex writes as null. */
function v2AgentMessage(item: Extract<CodexItem, { kind: 'agentMessage' }>): V2Item {
  return {
    type: 'agentMessage',
    moderation: null,
    id: item.id,
    text: item.text,
    phase: null,
    memoryCitation: null,
    delivery: null,
    questions: null,
  };
}
