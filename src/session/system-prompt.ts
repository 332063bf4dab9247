/** The system prompt of a session: the default (or `systemPrompt`), the extra folders, the appended text. */
import os from 'node:os';
import type { SessionOptions } from './options.ts';
import { workingFoldersNote } from './main-agent.ts';

/** agentpipe's own working instructions: an output style without `keep-coding-instructions` replaces them. */
export const CODING_INSTRUCTIONS = 'Use the tools to look before you answer; keep answers short and concrete.';

/** `system` without agentpipe's working instructions (a prompt the client wrote keeps all of its own). */
export const withoutCodingInstructions = (system: string): string => system.replace(`\n${CODING_INSTRUCTIONS}\n`, '\n');

export function systemPromptOf(options: SessionOptions, cwd: string, directories: string[]): string {
  const base =
    options.systemPrompt ??
    [
      "You are agentpipe, a coding agent that works in the user's folder with tools.",
      CODING_INSTRUCTIONS,
      `Working folder: ${cwd}`,
      `Platform: ${os.platform()}; date: ${new Date().toISOString().slice(0, 10)}`,
    ].join('\n');
  return [base, workingFoldersNote(directories), options.appendSystemPrompt ?? ''].filter(Boolean).join('\n\n');
}
