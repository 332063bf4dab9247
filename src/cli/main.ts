/**
 * `agentpipe`: the print run (print-run.ts: flags → session → runner → queue → output format →
 * stdout) and the subcommands. Exit code 1 when the last result is an error or the flags are
 * wrong; 0 otherwise (also when the reader of stdout went away); 128 + the signal's number when a
 * signal stopped the run.
 */
import { buildProgram, type CliFlags } from './flags.ts';
import { addServeCommand } from './serve-command.ts';
import { addSessionsCommand } from './sessions-command.ts';
import { addSandboxCommand } from './sandbox-command.ts';
import { addViewCommand } from './view-command.ts';
import { addWorkerCommand } from './worker-command.ts';
import { addAttachCommand } from './attach-command.ts';
import { addTapeCommands } from './replay-command.ts';
import { addTrustCommand } from './trust-command.ts';
import { commandNames, helpArgs, looksLikeCommand, printGiven, unknownCommandLine } from './commands.ts';
import { reportUsageError } from './options.ts';
import { releaseEarlySignals } from './early-signals.ts';
import { runPrint } from './print-run.ts';

const log = (line: string) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);

export async function main(argv: string[] = process.argv): Promise<void> {
  if (argv[2] === 'acp') {
    // `agentpipe acp`: the Agent Client Protocol server on stdio (loaded only for it).
    releaseEarlySignals();
    const { runAcpCommand } = await import('./acp-command.ts');
    return runAcpCommand(argv.slice(3), log);
  }
  if (argv[2] === 'app-server') {
    // `agentpipe app-server`: Codex's app-server protocol (loaded only for it).
    releaseEarlySignals();
    const { runAppServerCommand } = await import('./app-server-command.ts');
    return runAppServerCommand(argv.slice(3), log);
  }
  if (argv[2] === 'exec') {
    // `agentpipe exec`: Codex's `codex exec` command line and JSON lines (loaded only for it).
    releaseEarlySignals();
    const { runExecCommand } = await import('./exec-command.ts');
    process.exitCode = await runExecCommand(argv.slice(3), log);
    return;
  }
  const program = buildProgram();
  program.action(async (prompt: string | undefined, flags: CliFlags) => {
    try {
      process.exitCode = await runPrint(prompt, flags, log);
    } catch (error) {
      reportUsageError(error, log);
    }
  });
  addServeCommand(program, log);
  addSessionsCommand(program, log);
  addSandboxCommand(program, log);
  addViewCommand(program, log);
  addWorkerCommand(program, log);
  addAttachCommand(program, log);
  addTapeCommands(program, log);
  addTrustCommand(program, log);
  // A subcommand handles its signals itself (or leaves them to Node): the ones kept while loading are given back.
  program.hook('preSubcommand', () => releaseEarlySignals());
  const names = commandNames(program);
  if (argv[2] === 'help') {
    const help = helpArgs(argv.slice(3), names);
    if ('error' in help) return usageError(help.error);
    return main([...argv.slice(0, 2), ...help.args]);
  }
  // `agentpipe sesions`, `agentpipe serv --port 0`: refused before commander reads the flags of another command.
  const [first] = argv.slice(2);
  if (looksLikeCommand(first, printGiven(argv.slice(3))) && !names.includes(first!))
    return usageError(unknownCommandLine(first!, names));
  await program.parseAsync(argv);
}

function usageError(message: string): void {
  log(`agentpipe: error: ${message}`);
  process.exitCode = 1;
}
