/** What the page shows: items of the conversation, built from the library's projections. */
import type {
  ContentBlock,
  PlanEntry,
  ToolCallContent,
  ToolCallLocation,
  ToolKind,
} from '../../../src/sdk/acp-types.ts';

export type { ContentBlock, PlanEntry, ToolCallContent, ToolCallLocation, ToolKind };

interface Base {
  /** Stable key (list identity). */
  key: string;
  /** Bumped on every change, so unchanged items are not rendered again. */
  rev: number;
  /** The prompt (turn) this item belongs to, from 1. */
  turn: number;
}

export interface UserItem extends Base {
  kind: 'user';
  text: string;
  images: ContentBlock[];
  source: string;
}
export interface TextItem extends Base {
  kind: 'text';
  text: string;
  open: boolean;
}
export interface ThoughtItem extends Base {
  kind: 'thought';
  text: string;
  open: boolean;
}
export type ToolStatus = 'pending' | 'running' | 'completed' | 'failed';
export interface ToolItem extends Base {
  kind: 'tool';
  id: string;
  name: string;
  title: string;
  toolKind: ToolKind;
  status: ToolStatus;
  denied?: string;
  rawInput: unknown;
  content: ToolCallContent[];
  locations: ToolCallLocation[];
  rawOutput?: unknown;
  /** Seconds, from `tool_progress`. */
  elapsed?: number;
  /** Milliseconds since the epoch when it started running (live sessions). */
  startedAt?: number;
  /** Subagent items (Task calls), in order. */
  children: Item[];
  agentName?: string;
}
export type NoticeLevel = 'denial' | 'hook' | 'compaction' | 'error' | 'abort' | 'retry';
export interface NoticeItem extends Base {
  kind: 'notice';
  level: NoticeLevel;
  title: string;
  detail?: string;
}

export type Item = UserItem | TextItem | ThoughtItem | ToolItem | NoticeItem;

export interface Header {
  model: string;
  sessionId: string;
  permissionMode: string;
  cwd: string;
  version: string;
}
export interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  turns: number;
  durationMs: number;
}

/** What the server puts into the page (`<script id="agentpipe-data">`). */
export type PageData =
  | { mode: 'file'; title: string; messages: unknown[]; skipped?: number }
  | { mode: 'live'; title?: string }
  /** A cluster's sessions (`view --redis`, `serve --redis --ui`); `canStart`: the page may start sessions too. */
  | { mode: 'cluster'; title?: string; canStart?: boolean };
