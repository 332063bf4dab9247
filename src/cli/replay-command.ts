/**
 * `agentpipe replay <tape> [--verify]` and `agentpipe script <file>`: the subcommands of tapes. Their modules load
 * only when they run; the session flags are the main program's (`--replay-tools`, `--output-format` ...).
 */
import type { Command } from 'commander';
import type { CliFlags } from './flags.ts';
import { reportUsageError } from './options.ts';

/** Flags of `replay`, merged with the main program's. */
export interface ReplayFlags extends CliFlags {
  verify?: boolean;
  keep?: boolean;
  in?: string;
}

export function addTapeCommands(program: Command, log: (line: string) => void): void {
  const fail = (error: unknown) => {
    reportUsageError(error, log);
  };
  program
    .command('replay')
    .description(
      "replay a tape offline in a scratch copy of its starting folder, with the tape's prompts and options; " +
        '--verify compares the stream and the final files with the recorded ones (prints "same" or the first ' +
        'difference; exit 1 when they differ)',
    )
    .argument('<tape>', 'the tape (--record)')
    .option('--verify', 'compare with the recording instead of printing the stream')
    .option('--in <dir>', 'replay in this folder as it is, instead of a scratch copy of the starting folder')
    .option('--keep', 'keep the scratch folder (its path is printed on stderr)')
    .action(async (tape: string, _flags: unknown, command: Command) => {
      try {
        const { runReplay } = await import('./replay.ts');
        process.exitCode = await runReplay(tape, command.optsWithGlobals<ReplayFlags>(), log);
      } catch (error) {
        fail(error);
      }
    });
  program
    .command('script')
    .description(
      'turn a tape (--record) or a saved transcript (.jsonl) into a script for the scripted model ({"turns": [...]})',
    )
    .argument('<file>', 'a tape or a transcript')
    .option('-o, --out <file>', 'write the script here instead of stdout')
    .option('--no-timing', 'leave out delay_ms (the pace the recording streamed at)')
    .action(async (file: string, flags: { out?: string; timing?: boolean }) => {
      try {
        const { runScript } = await import('./script.ts');
        process.exitCode = await runScript(file, flags, log);
      } catch (error) {
        fail(error);
      }
    });
}
