// The library: run a prompt in this folder and report how it ended (a failed run is reported as failed).
import { query, isResultMessage, getPermissionDenials } from 'agentpipe';

const q = query({
  prompt: 'List the TypeScript files and summarize them',
  options: { cwd: process.cwd(), model: 'claude-sonnet-4-6', allowedTools: ['Read', 'Glob'] },
});
for await (const message of q) {
  if (!isResultMessage(message)) continue;
  // A run can fail with subtype "success" (a model request that failed, as Claude Code reports it): ask is_error.
  if (message.is_error) {
    const why = message.subtype === 'success' ? message.result : message.errors.join('; ');
    console.error(`failed (${message.subtype}): ${why}`);
    process.exitCode = 1;
  } else {
    console.log(message.result);
    console.log(`cost $${message.total_cost_usd.toFixed(4)}, denied: ${getPermissionDenials(message).length}`);
  }
}
