/**
 * `agentpipe acp [options]`: the model and session flags every entry point shares (flags.ts
 * `addSessionOptions`, mapped by `sessionOptionsFromFlags`), checked once, then the ACP server
 * on stdio. Each session runs in the folder its client gives (session/new, session/load).
 */
import { Command } from 'commander';
import { addSessionOptions, type CliFlags } from './flags.ts';
import { UsageError, reportUsageError, tapesForMany, sessionOptionsFromFlags } from './options.ts';

export function buildAcpProgram(): Command {
  const program = new Command('agentpipe acp').description(
    'Serve the Agent Client Protocol on stdio (for editors such as Zed). Sessions are saved as transcripts: ' +
      'session/list and session/load find them again.',
  );
  return addSessionOptions(program)
    .option('--no-partial-messages', 'send whole blocks instead of streamed chunks')
    .configureOutput({ outputError: (text, write) => write(`agentpipe: ${text.trim()} (see agentpipe acp --help)\n`) });
}

/** Parses `argv` (after `acp`), then serves until the client closes stdin. */
export async function runAcpCommand(argv: string[], log: (line: string) => void): Promise<void> {
  const program = buildAcpProgram();
  program.parse(argv, { from: 'user' });
  const flags = program.opts<CliFlags & { partialMessages?: boolean }>();
  try {
    const options = {
      ...tapesForMany(await sessionOptionsFromFlags(flags), 'acp'),
      includePartialMessages: flags.partialMessages !== false,
    };
    const { checkSessionOptions } = await import('../session/open.ts');
    await checkSessionOptions(options, log).catch((error: Error) => {
      throw new UsageError(error.message);
    });
    const { serveAcp } = await import('../acp/server.ts');
    await serveAcp({ ...options, stderr: log }, log);
  } catch (error) {
    reportUsageError(error, log);
  }
}
