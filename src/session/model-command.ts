/**
 * A client's `setModel()` (the `set_model` control request), as Claude Code 2.1.332 runs it: as its `/model` local
 * command. On the Anthropic API an alias or a retired model resolves as Claude Code resolves it
 * (model/claude-models.ts: `opus` → claude-opus-5-5, claude-opus-4-1 → claude-opus-5-5); when the model changes, the
 * command's output goes on the stream ("Set model to `opus (claude-opus-5-5)`") and the command joins the history
 * the model sees before the next prompt, in Claude Code's words (measured with the differential suite, sdk/set-model).
 * `null` or `default` returns to the session's own default model (agentpipe's, not Claude Code's Opus).
 */
import type { AgentMessage, TextBlock } from '../messages/types.ts';
import { localCommandOutput } from '../messages/user.ts';
import { modelSwitchLabel, resolveClaudeModel } from '../model/claude-models.ts';

/** Claude Code's note before a local command in the history. */
export const LOCAL_COMMAND_CAVEAT =
  '<local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, and its ' +
  "output goes straight to the user. It's recorded here as context for later messages.</local-command-caveat>";

/** The history blocks of a local command (the caveat, the command, its output), in Claude Code's layout. */
export function localCommandBlocks(name: string, args: string, stdout: string): TextBlock[] {
  const command =
    `<command-name>/${name}</command-name>\n            <command-message>${name}</command-message>\n` +
    `            <command-args>${args}</command-args>`;
  return [
    { type: 'text', text: LOCAL_COMMAND_CAVEAT },
    { type: 'text', text: command },
    { type: 'text', text: `<local-command-stdout>${stdout}</local-command-stdout>` },
  ];
}

/** What `setModel` needs of the session. */
export interface ModelHost {
  readonly id: string;
  readonly defaultModel: string;
  readonly ctx: { model: string; provider: { provider: string }; policy: { localCommands: boolean } };
  readonly harness?: { configure(change: { model?: string }): void };
  /** Adds blocks the model sees before the next prompt (after the running one, if one runs). */
  addContext(blocks: TextBlock[]): Promise<void>;
  emit(message: AgentMessage): Promise<void> | undefined;
}

/** Applies `setModel(requested)`; `requested` is the control request's `model` (checked: a string, null or absent). */
export async function setModel(session: ModelHost, requested: string | null | undefined): Promise<void> {
  const name = typeof requested === 'string' && requested.trim() && requested.trim() !== 'default' ? requested : null;
  const claude = session.ctx.provider.provider === 'anthropic' && session.ctx.policy.localCommands;
  const model = name === null ? session.defaultModel : claude ? resolveClaudeModel(name) : name;
  const changed = model !== session.ctx.model;
  session.ctx.model = model;
  // A wrapped agent gets an explicit model (going back to its default needs a new session) and says what it did.
  if (session.harness) {
    if (name !== null) session.harness.configure({ model: name });
    return;
  }
  if (!changed || !session.ctx.policy.localCommands) return;
  const stdout = `Set model to \`${name === null ? model : claude ? modelSwitchLabel(name) : name}\``;
  await session.emit(localCommandOutput(stdout, session.id));
  await session.addContext(localCommandBlocks('model', name ?? 'default', stdout));
}
