/**
 * The `agentpipe serve` subcommand: its own flags (--port, --host, --token); the model and
 * session flags are the main program's, read with `optsWithGlobals()`. The server module (and
 * `ws`) load only when the subcommand runs.
 */
import type { Command } from 'commander';
import { port, type CliFlags } from './flags.ts';
import { reportUsageError } from './options.ts';

/** Flags of `serve`, merged with the main program's. */
export interface ServeFlags extends CliFlags {
  port: number;
  host: string;
  token?: string | boolean;
  tokenFile?: string;
  allowOrigin?: string[];
  ui?: boolean;
  open?: boolean;
  redis?: string;
}

/** Collects a repeatable option. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function addServeCommand(program: Command, log: (line: string) => void): void {
  program
    .command('serve')
    .description(
      'WebSocket server: each connection is one stream-json session (same protocol as --input-format stream-json). ' +
        'It takes the model and session flags (--model, --permission-mode, --cwd, ...: agentpipe --help lists them) ' +
        "as each session's options",
    )
    .requiredOption('--port <n>', 'port to listen on (0: any free port, printed on stderr)', port)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option(
      '--token <token>',
      'required from clients as "Authorization: Bearer <token>" or ?token= (visible in ps: prefer --token-file ' +
        'or AGENTPIPE_SERVE_TOKEN); default: a fresh token, printed in the URL',
    )
    .option('--token-file <file>', 'read the token from the first line of this file (kept out of ps)')
    .option(
      '--no-token',
      'serve without a token (loopback only): any local process, and any page allowed by --allow-origin, can ' +
        'run tools here',
    )
    .option(
      '--allow-origin <origin>',
      "a browser origin (https://app.example.com) that may connect besides the server's own pages; repeatable",
      collect,
    )
    .option(
      '--ui',
      'also serve the viewer page on the same port (plain HTTP): live sessions with a prompt box and a Stop ' +
        "button; with --redis, the cluster's sessions too, each watched live (its URL is printed on stdout)",
    )
    .option('--open', 'with --ui: open the page in a browser (when one can be started here)')
    .option(
      '--redis <url>',
      'cluster front end: sessions run on the `agentpipe worker`s of this Redis; reconnect with ' +
        '?session=<id>&from=<last uuid>',
    )
    .action(async (_flags: unknown, command: Command) => {
      try {
        const { serve } = await import('./serve.ts');
        process.exitCode = await serve(command.optsWithGlobals<ServeFlags>(), log);
      } catch (error) {
        reportUsageError(error, log);
      }
    });
}
