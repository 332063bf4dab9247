/** Builds the MCP SDK transport of one server config (the SDK modules load only here). */
import path from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig, McpStdioServerConfig } from './config.ts';
import type { SandboxConfig } from '../../sandbox/config.ts';
import { findExecutable, outsidePath } from '../../process/executable.ts';
import { ControlChannelTransport, type McpMessageSender } from './control-transport.ts';

/** A transport and, for child processes, the tail of their stderr (for error messages). */
export interface OpenedTransport {
  transport: Transport;
  stderrTail(): string;
  /** Tidies what the server's sandbox needed, once it stopped. */
  release?(): void;
}

export async function openTransport(
  name: string,
  config: McpServerConfig,
  cwd: string,
  sender?: McpMessageSender,
  sandbox?: SandboxConfig,
): Promise<OpenedTransport> {
  const none = () => '';
  switch (config.type) {
    case 'sdk': {
      if (!sender) throw new Error('in-process (sdk) servers need a client on the control channel (stream-json input)');
      return { transport: new ControlChannelTransport(config.name ?? name, sender), stderrTail: none };
    }
    case 'http': {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return {
        transport: new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }),
        stderrTail: none,
      };
    }
    case 'sse': {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      return {
        transport: new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }),
        stderrTail: none,
      };
    }
    default: {
      const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      // As the MCP SDK does by default: a few safe variables (PATH, HOME, USER ...) plus the
      // server's configured env; never agentpipe's keys or the rest of its environment.
      const serverCwd = config.cwd ? path.resolve(cwd, config.cwd) : cwd;
      const env = { ...getDefaultEnvironment(), ...config.env };
      const start = await confine(config, serverCwd, env, sandbox);
      const transport = new StdioClientTransport({
        command: start.argv[0]!,
        args: start.argv.slice(1),
        env: start.env,
        cwd: serverCwd,
        stderr: 'pipe',
      });
      let tail = '';
      transport.stderr?.on('data', (chunk: Buffer | string) => {
        tail = (tail + String(chunk)).slice(-2000);
      });
      return {
        transport,
        stderrTail: () => tail.trim().split('\n').slice(-5).join('\n'),
        release: () => start.release(),
      };
    }
  }
}

/** The server's argv in the session's sandbox (its `sandbox` config may open more, or turn it off). */
async function confine(
  config: McpStdioServerConfig,
  cwd: string,
  env: Record<string, string>,
  sandbox: SandboxConfig | undefined,
): Promise<{ argv: string[]; env: Record<string, string>; release(): void }> {
  const argv = [config.command, ...(config.args ?? [])];
  const own = config.sandbox;
  if (!sandbox || own?.enabled === false) {
    const program = await outsideProgram(config.command, env, sandbox);
    // What the server looks up by name itself (env's interpreter, a program it runs) is not the working folder's.
    const outside = env.PATH === undefined ? env : { ...env, PATH: outsidePath(env.PATH) };
    return { argv: [program, ...argv.slice(1)], env: outside, release: () => {} };
  }
  // Inside, bubblewrap would only say execvp failed: say it as spawning it directly would.
  if (!findExecutable(config.command, { PATH: env.PATH }))
    throw new Error(`spawn ${config.command} ENOENT (the MCP server's command was not found)`);
  const { sandboxed } = await import('../../sandbox/sandbox.ts');
  const home = env.HOME ?? '';
  const expand = (p: string) => (p.startsWith('~/') ? path.join(home, p.slice(2)) : path.resolve(cwd, p));
  return sandboxed(sandbox, {
    profile: 'mcp',
    command: argv,
    cwd,
    env,
    network: own?.network ? { hosts: own.allowedDomains ?? [] } : 'none',
    writable: own?.allowWrite?.map(expand),
    readable: own?.allowRead?.map(expand),
  });
}

/**
 * The program of a server that runs outside the sandbox: a name is looked up on the server's PATH as agentpipe looks up
 * its own programs (process/executable.ts): never in an empty, `.` or relative entry, nor in a folder the model's
 * commands may write (a PATH entry inside a working folder, or a link leading into one), where a command could plant
 * it and have it run unconfined. A path (with a slash) is the user's choice, taken as given.
 */
async function outsideProgram(
  command: string,
  env: Record<string, string>,
  sandbox: SandboxConfig | undefined,
): Promise<string> {
  if (sandbox) {
    const { markWorkingFolders } = await import('../../sandbox/sandbox.ts');
    await markWorkingFolders(sandbox);
  }
  if (command.includes('/')) return command;
  const found = findExecutable(command, { PATH: env.PATH });
  if (found === undefined)
    throw new Error(
      `spawn ${command} ENOENT (the MCP server's command was not found on PATH outside the working folders; ` +
        'name it by its path to run one from there)',
    );
  return found;
}
