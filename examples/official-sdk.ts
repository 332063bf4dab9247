// The official Claude Agent SDK, unchanged, running agentpipe instead of Claude Code: point
// pathToClaudeCodeExecutable at the agentpipe on your PATH (npm install -g of the tarball, or npm link in a checkout).
import { execFileSync } from 'node:child_process';
import { query } from '@anthropic-ai/claude-agent-sdk';

const agentpipe = execFileSync('sh', ['-c', 'command -v agentpipe'], { encoding: 'utf8' }).trim();
for await (const message of query({
  prompt: 'What is in this folder?',
  options: { pathToClaudeCodeExecutable: agentpipe, model: 'scripted' }, // or a Claude model with ANTHROPIC_API_KEY
})) {
  if (message.type === 'system' && message.subtype === 'init') console.log(`tools: ${message.tools.join(', ')}`);
  if (message.type === 'result' && message.subtype === 'success' && !message.is_error) console.log(message.result);
  else if (message.type === 'result') console.log(`failed (${message.subtype})`);
}
