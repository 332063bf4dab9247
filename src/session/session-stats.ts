/** What a whole session did, for `get_usage` and `get_session_cost`: usage per model, time, lines changed. */
import type { AgentMessage } from '../messages/types.ts';
import { UsageTracker } from '../agent/usage.ts';

export class SessionStats {
  /** Tokens and cost of every finished prompt. */
  readonly usage = new UsageTracker();
  /** Wall time of every finished prompt. */
  durationMs = 0;
  linesAdded = 0;
  linesRemoved = 0;

  /** Counts the lines an Edit or Write changed, from its `tool_use_result` (the patch, or a new file's content). */
  observe(message: AgentMessage): void {
    if (message.type !== 'user' || typeof message.tool_use_result !== 'object' || message.tool_use_result === null)
      return;
    const result = message.tool_use_result as { structuredPatch?: unknown; type?: unknown; content?: unknown };
    // A created file's patch is empty (as in Claude Code): each of its lines is added.
    if (result.type === 'create' && typeof result.content === 'string') {
      this.linesAdded +=
        result.content === '' ? 0 : result.content.split('\n').length - (result.content.endsWith('\n') ? 1 : 0);
      return;
    }
    const patch = result.structuredPatch;
    if (!Array.isArray(patch)) return;
    for (const hunk of patch as Array<{ lines?: unknown }>) {
      if (!Array.isArray(hunk.lines)) continue;
      for (const line of hunk.lines) {
        if (typeof line !== 'string') continue;
        if (line.startsWith('+')) this.linesAdded++;
        else if (line.startsWith('-')) this.linesRemoved++;
      }
    }
  }

  /** Adds a finished prompt. */
  addPrompt(usage: UsageTracker, durationMs: number): void {
    this.usage.merge(usage);
    this.durationMs += durationMs;
  }
}
