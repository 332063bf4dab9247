/**
 * The slash commands agentpipe runs itself, in Claude Code 2.1.332's shape and words (measured with
 * `supportedCommands()`): `initialize`'s `commands`, the SDK's `supportedCommands()` and `system/init.slash_commands`.
 * Only what a prompt can really run is listed (`/compact`: agent/compact.ts); Claude Code's other commands are its
 * own (docs/compat.md).
 */

/** One command, as the SDK's `SlashCommand`. */
export interface SlashCommandInfo {
  name: string;
  description: string;
  argumentHint: string;
  aliases?: string[];
  /** The product's own command (not a user's, project's, plugin's or MCP server's). */
  builtin?: boolean;
}

export const SLASH_COMMANDS: readonly SlashCommandInfo[] = [
  {
    name: 'compact',
    description: 'Free up context by summarizing the conversation so far',
    argumentHint: '<optional custom summarization instructions>',
    builtin: true,
  },
];

/** Each command's row, a fresh copy (a client's answer is its own). */
export const slashCommands = (): SlashCommandInfo[] => SLASH_COMMANDS.map((command) => ({ ...command }));
