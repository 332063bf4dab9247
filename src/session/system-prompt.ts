/** The system prompt of a session: the default (or `systemPrompt`), the extra folders, the appended text. */
import os from 'node:os';
import type { SessionOptions } from './options.ts';
import { workingFoldersNote } from './main-agent.ts';

export function systemPromptOf(options: SessionOptions, cwd: string, directories: string[]): string {
  const base =
    options.systemPrompt ??
    [
      "You are agentpipe, a coding agent that works in the user's folder with tools.",
      'Use the tools to look before you answer; keep answers short and concrete.',
      `Working folder: ${cwd}`,
      `Platform: ${os.platform()}; date: ${new Date().toISOString().slice(0, 10)}`,
    ].join('\n');
  return [base, workingFoldersNote(directories), options.appendSystemPrompt ?? ''].filter(Boolean).join('\n\n');
}
