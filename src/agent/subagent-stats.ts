/** Counting `result.subagent_stats` (the shape: SubagentStats in messages/types.ts). */
import type { SubagentStats } from '../messages/types.ts';

export function emptySubagentStats(): SubagentStats {
  return {
    spawned: 0,
    requested: { background: 0, foreground: 0, unset: 0 },
    started_in_background: 0,
    max_depth: 0,
    spawned_by_subagents: 0,
    completed: 0,
    failed: 0,
    killed: { parent: 0, user: 0, system: 0 },
    refused: { depth_limit: 0, concurrency_limit: 0, budget: 0 },
    by_type: {},
  };
}

/** Counts a subagent started at `depth` (1: by the main agent). */
export function noteSpawned(stats: SubagentStats, type: string, depth: number): void {
  stats.spawned++;
  stats.requested.unset++;
  stats.max_depth = Math.max(stats.max_depth, depth);
  if (depth > 1) stats.spawned_by_subagents++;
  stats.by_type[type] = (stats.by_type[type] ?? 0) + 1;
}

/** Counts how a subagent ended: `stopped` by the user (`stop_task`, an interrupt). */
export function noteEnded(stats: SubagentStats, status: 'completed' | 'failed' | 'stopped'): void {
  if (status === 'stopped') stats.killed.user++;
  else stats[status]++;
}
