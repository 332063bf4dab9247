/**
 * One ACP session: a query() with streaming input, its prompts turned into session/update
 * notifications through the ACP projection, permission questions sent to the client.
 */
import { promptMessage } from '../messages/user.ts';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { AgentMessage, PermissionMode, ResultMessage } from '../messages/types.ts';
import type { PermissionResult } from '../messages/control.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { AcpUpdateProjector } from '../sdk/acp-updates.ts';
import type { SessionUpdate } from '../sdk/acp-types.ts';
import { contextTokensOf } from '../sdk/session-event-data.ts';
import { query } from '../sdk/query.ts';
import type { PromptMessage, Query, QueryOptions } from '../sdk/types.ts';
import { toolKind, toolTitle } from '../sdk/tool-info.ts';
import { promptContent, usageUpdateOf } from './convert.ts';
import { titleOf, type SavedSession } from './saved.ts';

/** What the session needs of the connection. */
/** What the server sends in `session/update`: the projection's updates, usage and mode changes. */
export type PeerUpdate =
  SessionUpdate | ReturnType<typeof usageUpdateOf> | { sessionUpdate: 'current_mode_update'; currentModeId: string };

export interface AcpPeer {
  /** Sends a `session/update` (the projection's updates, usage and mode changes). */
  update(sessionId: string, update: PeerUpdate): Promise<void>;
  requestPermission(
    params: Record<string, unknown>,
  ): Promise<{ outcome: { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string } }>;
}

export class AcpSession {
  readonly id: string;
  readonly cwd: string;
  mode: PermissionMode;
  title?: string;
  updatedAt = new Date().toISOString();
  /** The stream so far, prompt echoes included (a loaded session's saved one first), for session/load. */
  readonly log: AgentMessage[] = [];
  readonly #input = new AsyncMessageQueue<PromptMessage>({ highWaterMark: 1024 });
  readonly #query: Query;
  readonly #iterator: AsyncIterator<AgentMessage>;
  /** The client sent the prompt and shows it: its echo is not sent back during the prompt. */
  readonly #projector = new AcpUpdateProjector({ showPrompts: false });
  readonly #peer: AcpPeer;
  readonly #alwaysAllowed = new Set<string>();
  #contextTokens = 0;
  #busy = false;

  /** A new session `id`, or with `saved` the saved session `id` resumed from its transcript. */
  constructor(id: string, options: QueryOptions & { cwd: string }, peer: AcpPeer, saved?: SavedSession) {
    this.id = id;
    this.cwd = options.cwd;
    this.mode = options.permissionMode ?? 'default';
    this.#peer = peer;
    if (saved) {
      this.log.push(...saved.log);
      this.title = saved.title;
      this.updatedAt = saved.updatedAt;
    }
    const start = saved ? { resume: saved.file } : { sessionId: id };
    this.#query = query({
      prompt: this.#input,
      options: {
        ...options,
        ...start,
        // ACP's own contract, not Claude Code's: agentpipe's retries and endings unless the command line says.
        outcomePolicy: options.outcomePolicy ?? 'agentpipe',
        replayUserMessages: true,
        canUseTool: (name, input, o) => this.#ask(name, input, o),
      },
    });
    this.#iterator = this.#query[Symbol.asyncIterator]();
  }

  /** Runs one prompt, streaming updates; returns its result. */
  async prompt(blocks: ContentBlock[], trace?: { traceparent: string; tracestate?: string }): Promise<ResultMessage> {
    if (this.#busy) throw new Error('a prompt is already running in this session; cancel it first');
    this.#busy = true;
    try {
      const content = promptContent(blocks);
      if (!content.length) throw new Error('the prompt has no text, image or resource content');
      this.title ??= titleOf(content);
      await this.#input.push({ ...promptMessage(content, this.id), ...(trace ? { _meta: trace } : {}) });
      for (;;) {
        const next = await this.#iterator.next();
        if (next.done) throw new Error('the session ended before the prompt finished');
        const message = next.value;
        this.log.push(message);
        this.#contextTokens = contextTokensOf(message) ?? this.#contextTokens;
        for (const update of this.#projector.push(message)) await this.#peer.update(this.id, update);
        if (message.type === 'result') {
          await this.#peer.update(this.id, usageUpdateOf(message, this.#contextTokens));
          this.updatedAt = new Date().toISOString();
          return message;
        }
      }
    } finally {
      this.#busy = false;
    }
  }

  async cancel(): Promise<void> {
    // The prompt ended meanwhile: nothing to cancel.
    if (this.#busy) await this.#query.interrupt().catch(() => {});
  }

  async setMode(mode: PermissionMode): Promise<void> {
    await this.#query.setPermissionMode(mode);
    this.mode = mode;
  }

  close(): void {
    this.#input.done();
    this.#query.close();
  }

  async #ask(
    toolName: string,
    input: Record<string, unknown>,
    options: { signal: AbortSignal; toolUseId: string },
  ): Promise<PermissionResult> {
    if (this.#alwaysAllowed.has(toolName)) return { behavior: 'allow', updatedInput: input };
    const answer = this.#peer.requestPermission({
      sessionId: this.id,
      toolCall: {
        toolCallId: options.toolUseId,
        title: toolTitle(toolName, input),
        kind: toolKind(toolName),
        status: 'pending',
        rawInput: input,
      },
      options: [
        { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    const aborted = new Promise<never>((_, reject) =>
      options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true }),
    );
    const { outcome } = await Promise.race([answer, aborted]);
    if (outcome.outcome === 'cancelled')
      return { behavior: 'deny', message: 'The user cancelled the permission request', interrupt: true };
    if (outcome.optionId === 'allow_always') this.#alwaysAllowed.add(toolName);
    if (outcome.optionId === 'allow' || outcome.optionId === 'allow_always')
      return { behavior: 'allow', updatedInput: input };
    return { behavior: 'deny', message: `The user rejected ${toolName}` };
  }
}
