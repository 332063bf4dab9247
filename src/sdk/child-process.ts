/**
 * The child-process engine of `query()`: agentpipe's CLI started with the stream-json flags, the control protocol
 * (protocol-engine.ts) on its stdio (`StdioTransport`).
 */
import { rmSync } from 'node:fs';
import { childEnv, flagsFromOptions } from './cli-flags.ts';
import { startLineEngine } from './protocol-engine.ts';
import { StdioTransport } from './stdio-transport.ts';
import type { Engine, PromptMessage, QueryOptions } from './types.ts';

const STREAM_FLAGS = ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];

export function startChildProcess(
  prompt: string | AsyncIterable<PromptMessage>,
  options: QueryOptions & { executable: string },
): Engine {
  const log = options.stderr ?? (() => {});
  const { args, tempFiles } = flagsFromOptions(options);
  const script = /\.(c|m)?(j|t)s$/.test(options.executable);
  const command = script ? process.execPath : options.executable;
  const argv = [
    ...(script ? [...(options.executableArgs ?? []), options.executable] : (options.executableArgs ?? [])),
    ...STREAM_FLAGS,
    ...args,
  ];
  const transport = new StdioTransport({
    command,
    args: argv,
    env: childEnv(options),
    cwd: options.cwd,
    onStderr: log,
  });
  return startLineEngine(prompt, options, transport, {
    gone: 'agentpipe exited',
    async failure(results) {
      const code = await transport.exited;
      for (const file of tempFiles) rmSync(file, { force: true });
      const tail = transport.stderrTail.trim();
      if (transport.startError) return new Error(`cannot start ${options.executable}: ${transport.startError.message}`);
      // Stopped by our own SIGTERM (close()), agentpipe exits 143: that is how it was asked to end.
      if (results === 0 && code !== 0 && !(transport.terminated && code === 143))
        return new Error(`agentpipe exited with code ${code}${tail ? `: ${tail}` : ''}`);
      return undefined;
    },
  });
}
