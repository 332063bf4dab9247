/**
 * Drives agentpipe through the REAL official `@anthropic-ai/claude-agent-sdk`: options that
 * point `pathToClaudeCodeExecutable` at our CLI with the scripted model, a prompt stream the
 * test pushes into, and small helpers to read the yielded sequence.
 */
import path from 'node:path';
import {
  query,
  type AgentInfo,
  type Options,
  type SDKMessage,
  type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { CLI_PATH } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

/** Options of a scripted session in a fresh folder; `stderr` collects the CLI's diagnostics. */
export function sdkOptions(turns: unknown[], extra: Options = {}): Options & { cwd: string; stderrText: () => string } {
  const dir = tempDir();
  const script = writeScript(dir, turns);
  let stderr = '';
  return {
    pathToClaudeCodeExecutable: CLI_PATH,
    model: 'scripted',
    extraArgs: { script },
    cwd: dir,
    // `env` replaces process.env: keep PATH (with this Node first, since the SDK spawns `node`).
    env: {
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? dir,
      // A throwaway home: no user settings or transcripts of the developer's own ~/.agentpipe.
      AGENTPIPE_HOME: process.env.AGENTPIPE_HOME!,
      ...(process.env.AGENTPIPE_CLI_SOURCE ? { AGENTPIPE_CLI_SOURCE: '1' } : {}),
    },
    stderr: (data: string) => (stderr += data),
    stderrText: () => stderr,
    ...extra,
  };
}

/** A prompt stream for streaming input: `push` user messages (optionally with a uuid), `end` closes it (stdin EOF). */
export function promptStream(): AsyncIterable<SDKUserMessage> & {
  push(text: string, uuid?: string): void;
  end(): void;
} {
  const items: Array<SDKUserMessage | null> = [];
  let wake: (() => void) | undefined;
  return {
    /** `uuid`: the message's handle in the prompt queue (`interrupt` receipts, `cancel_async_message`). */
    push(text, uuid) {
      items.push({
        type: 'user',
        message: { role: 'user', content: text },
        parent_tool_use_id: null,
        session_id: '',
        ...(uuid ? { uuid: uuid as SDKUserMessage['uuid'] } : {}),
      });
      wake?.();
    },
    end() {
      items.push(null);
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const item = items.shift();
        if (item === null) return;
        if (item) yield item;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

/** `system/init`, `assistant`, ... : the yielded sequence in a comparable form. */
export function kinds(messages: SDKMessage[]): string[] {
  return messages.map((m) => ('subtype' in m && m.type === 'system' ? `system/${m.subtype}` : m.type));
}

/** Text of an assistant or user message's content. */
export function textOf(message: SDKMessage | undefined): string {
  const content = (message as { message?: { content?: unknown } } | undefined)?.message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type: string; text?: string; content?: unknown }) =>
      b.type === 'text'
        ? b.text
        : typeof b.content === 'string'
          ? b.content
          : Array.isArray(b.content) // a tool result's blocks (an MCP tool's)
            ? (b.content as Array<{ type: string; text?: string }>)
                .map((c) => (c.type === 'text' ? c.text : ''))
                .join('')
            : '',
    )
    .join('');
}

/** The agents a streaming query reports through `supportedAgents()`; the query is then drained. */
export async function supportedAgentsOf(options: Options): Promise<AgentInfo[]> {
  const prompts = promptStream();
  const q = query({ prompt: prompts, options });
  const agents = await q.supportedAgents();
  prompts.end();
  for await (const _ of q) {
    /* drain */
  }
  return agents;
}

/**
 * Runs prompts through one query, each after the previous result; returns the messages and the conversation as the
 * session exports it.
 */
export async function runPrompts(
  options: Options,
  texts: string[],
): Promise<{ messages: SDKMessage[]; exported: string }> {
  const prompts = promptStream();
  prompts.push(texts[0]!);
  const q = query({ prompt: prompts, options });
  const messages: SDKMessage[] = [];
  let exported = '';
  let next = 1;
  for await (const message of q) {
    messages.push(message);
    if (message.type !== 'result') continue;
    if (next < texts.length) prompts.push(texts[next++]!);
    else {
      const answer = await (
        q as unknown as { exportConversation(): Promise<{ content: string }> }
      ).exportConversation();
      exported = answer.content;
      prompts.end();
    }
  }
  return { messages, exported };
}
