/**
 * The command words of `agentpipe`: `help [command]`, and a word that is no command. A bare word
 * first on the command line, without `-p`, is taken for a command (`agentpipe sesions`, `agentpipe
 * serv --port 0`), never sent to a model as a prompt: it is refused with the nearest command and the
 * way to send it as a prompt. A prompt of several words, one given with `-p`, or one after the flags
 * (as scripts write `agentpipe --model x hello`) runs as before.
 */
import type { Command } from 'commander';
import { nearest } from '../process/nearest.ts';

/** Commands dispatched before commander parses (their own parsers). */
export const EARLY_COMMANDS = ['acp', 'exec', 'app-server'] as const;

/** A word that looks like a command rather than a prompt. */
const COMMAND_WORD = /^[a-z][a-z0-9-]*$/;

/** Every command name of the program, the early ones and `help` included. */
export function commandNames(program: Command): string[] {
  return [...EARLY_COMMANDS, ...program.commands.map((c) => c.name()), 'help'];
}

/** The one line refusing `word` as a command, with the nearest command and how to send it as a prompt. */
export function unknownCommandLine(word: string, names: readonly string[]): string {
  const near = nearest(word, names);
  return (
    `unknown command '${word}'${near ? ` (did you mean ${near}?)` : ''}; to send it as a prompt: ` +
    `agentpipe -p ${COMMAND_WORD.test(word) ? word : JSON.stringify(word)} (agentpipe help lists the commands)`
  );
}

/** True when `-p`/`--print` is among the arguments (also in a group of short flags such as `-pc`). */
export function printGiven(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--print' || /^-[a-zA-Z]*p[a-zA-Z]*$/.test(arg)) return true;
  }
  return false;
}

/** A one-word positional prompt without `-p` that reads as a (mistyped) command. */
export function looksLikeCommand(prompt: string | undefined, print: boolean | undefined): boolean {
  return print !== true && prompt !== undefined && COMMAND_WORD.test(prompt);
}

/**
 * `agentpipe help [command...]`: the arguments that show that help (`serve --help`, `sandbox doctor --help`), or an
 * error line for an unknown command.
 */
export function helpArgs(words: string[], names: readonly string[]): { args: string[] } | { error: string } {
  const [name] = words;
  if (name === undefined || name === 'help') return { args: ['--help'] };
  if (!names.includes(name)) {
    const near = nearest(name, names);
    return {
      error: `no command '${name}'${near ? ` (did you mean ${near}?)` : ''}; agentpipe help lists the commands`,
    };
  }
  return { args: [...words, '--help'] };
}
