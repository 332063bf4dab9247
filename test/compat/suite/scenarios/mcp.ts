/** CLI scenarios: an MCP stdio server (the reference "everything" server) and a subagent. */
import path from 'node:path';
import { ROOT } from '../../../helpers/cli.ts';
import { answer, calls } from '../replies.ts';
import type { CliScenario } from '../scenario.ts';

const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** `--mcp-config` for the everything server over stdio, run by the pinned Node (first on the suite's PATH). */
export const MCP_CONFIG = JSON.stringify({
  mcpServers: { everything: { command: 'node', args: [EVERYTHING, 'stdio'] } },
});

export const mcpScenarios: CliScenario[] = [
  {
    kind: 'cli',
    area: 'mcp',
    name: 'mcp/echo-tool',
    replies: [calls(['toolu_m', 'mcp__everything__echo', { message: 'ping' }]), answer('done')],
    args: ['go', '--mcp-config', MCP_CONFIG, '--allowedTools', 'mcp__everything__echo'],
  },
  {
    kind: 'cli',
    area: 'mcp',
    name: 'mcp/tool-asks-in-default',
    replies: [calls(['toolu_m', 'mcp__everything__echo', { message: 'ping' }]), answer('done')],
    args: ['go', '--mcp-config', MCP_CONFIG],
  },
  {
    kind: 'cli',
    area: 'mcp',
    name: 'mcp/unknown-server-tool',
    replies: [calls(['toolu_m', 'mcp__nowhere__echo', { message: 'ping' }]), answer('done')],
    args: ['go', '--mcp-config', MCP_CONFIG],
  },
];
