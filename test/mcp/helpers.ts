/** MCP test helpers: server configs (real npm server, local fixture) and a stream-json run. */
import net from 'node:net';
import path from 'node:path';
import { ROOT, runCli, parseLines } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { CliDriver } from './driver.ts';

export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FIXTURE = path.join(ROOT, 'test/fixtures/mcp-test-server.ts');

/** `@modelcontextprotocol/server-everything` over stdio. */
export const everythingStdio = () => ({ command: process.execPath, args: [EVERYTHING, 'stdio'] });
/** The local fixture server (add, crash, sleep, fail). */
export const fixtureServer = (env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [FIXTURE],
  env,
});

export const userLine = (text: string) =>
  JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' });

/**
 * An allow rule for every tool of these servers: MCP tools ask in the default mode, read-only (`readOnlyHint`) or
 * not, as in Claude Code (the hint is the server's claim); the tests that run them name them, as a user would.
 */
const allowServers = (servers: Record<string, unknown>) => [
  '--allowedTools',
  ...Object.keys(servers).map((name) => `mcp__${name}`),
];

/** The flags of a stream-json CLI run on `script` with these MCP servers (their tools allowed). */
export function mcpCliArgs(servers: Record<string, unknown>, script: string, extraArgs: string[] = []): string[] {
  return [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--input-format',
    'stream-json',
    '--model',
    'scripted',
    '--script',
    script,
    ...allowServers(servers),
    ...extraArgs,
    '--mcp-config',
    JSON.stringify({ mcpServers: servers }),
  ];
}

/** A CLI driver (control requests, prompts) with these MCP servers (their tools allowed) and scripted turns. */
export function startWithMcp(servers: Record<string, unknown>, turns: unknown[] = []): CliDriver {
  const script = writeScript(tempDir(), turns);
  return new CliDriver([
    '--model',
    'scripted',
    '--script',
    script,
    ...allowServers(servers),
    '--mcp-config',
    JSON.stringify({ mcpServers: servers }),
  ]);
}

/** Runs one prompt through the real CLI with these MCP servers and scripted turns. */
export async function runWithMcp(
  servers: Record<string, unknown>,
  turns: unknown[],
  options: { env?: Record<string, string>; extraArgs?: string[] } = {},
) {
  const dir = tempDir();
  const script = writeScript(dir, turns);
  const run = await runCli(mcpCliArgs(servers, script, options.extraArgs), {
    stdin: `${userLine('go')}\n`,
    env: options.env,
    timeoutMs: 40_000,
  });
  const messages = parseLines(run.stdout);
  return { ...run, messages, dir };
}

/** Tool results of a run, by tool_use_id order. */
export function toolResults(messages: Array<Record<string, any>>): Array<Record<string, any>> {
  return messages
    .filter(
      (m) => m.type === 'user' && Array.isArray(m.message.content) && m.message.content[0]?.type === 'tool_result',
    )
    .map((m) => ({ ...m.message.content[0], tool_use_result: m.tool_use_result }));
}

/** A port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
