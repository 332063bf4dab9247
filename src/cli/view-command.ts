/**
 * The `agentpipe view` subcommand: its own flags; the model and session flags of live sessions
 * are the main program's (`optsWithGlobals()`). Nothing of the viewer loads unless it runs.
 */
import { Option, type Command } from 'commander';
import { port, type CliFlags } from './flags.ts';
import { collect } from './serve-command.ts';
import { reportUsageError } from './options.ts';

export interface ViewFlags extends CliFlags {
  port: number;
  host: string;
  open?: boolean;
  live?: boolean;
  export?: string;
  token?: string | boolean;
  tokenFile?: string;
  allowOrigin?: string[];
  redis?: string;
}

export function addViewCommand(program: Command, log: (line: string) => void): void {
  program
    .command('view')
    .description(
      'web page of a session: a saved stream (.jsonl transcript or stream-json output), or --live sessions ' +
        'started from the page, which take the model and session flags (--model, --permission-mode, --cwd, ...: ' +
        'agentpipe --help lists them)',
    )
    .argument(
      '[file]',
      'saved stream: a transcript ($AGENTPIPE_HOME/projects/…/<id>.jsonl) or stream-json output of agentpipe ' +
        'or Claude Code, or a saved session by its id or a unique start of it (agentpipe sessions lists them)',
    )
    .addOption(new Option('--port <n>', 'port to listen on (0: any free port)').argParser(port).default(0))
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--open', 'open the page in a browser (when one can be started here)')
    .option(
      '--live',
      'live sessions: a prompt box starts one (with the model and session flags given), Stop interrupts it',
    )
    .option(
      '--export <file.html>',
      'write one self-contained HTML file (no network, no external assets) instead of serving',
    )
    .option(
      '--token <token>',
      'required from clients (visible in ps: prefer --token-file or AGENTPIPE_SERVE_TOKEN); default with --live, ' +
        '--redis or a --host that is not loopback: a fresh token, in the printed URL',
    )
    .option('--token-file <file>', 'read the token from the first line of this file (kept out of ps)')
    .option('--no-token', 'no token (loopback only)')
    .option(
      '--allow-origin <origin>',
      'with --live or --redis: a browser origin that may connect besides the page itself; repeatable',
      collect,
    )
    .option(
      '--redis <url>',
      "a live page of a cluster's sessions (the Redis of `agentpipe worker`): the list, and each one's " +
        'messages as they come',
    )
    .action(async (file: string | undefined, _flags: unknown, command: Command) => {
      try {
        const { runView } = await import('./view.ts');
        process.exitCode = await runView(file, command.optsWithGlobals<ViewFlags>(), log);
      } catch (error) {
        reportUsageError(error, log);
      }
    });
}
