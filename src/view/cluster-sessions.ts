/**
 * What the `/sessions` feed of a cluster's viewer page sends (view/cluster-feed.ts). Types only,
 * importing nothing, so the browser viewer (web/src/cluster.ts) reads the same definition.
 */

/** One session of the list. */
export interface ClusterSessionSummary {
  id: string;
  /** A worker runs it now. */
  running: boolean;
  /** The text of its first prompt (cut at 200 characters), if any. */
  title: string;
  model?: string;
  cwd?: string;
  /** Durable messages in its log. */
  messages: number;
  /** Epoch ms of its first and last durable message. */
  startedAt: number;
  lastAt: number;
}

/** The message the `/sessions` connection sends. */
export interface ClusterSessionsMessage {
  type: 'agentpipe_cluster_sessions';
  sessions: ClusterSessionSummary[];
  workers: number;
}
