/**
 * The session's transcript recorder: what the session emitted (minus stream deltas, heartbeats,
 * prompt echoes and auth_status), each turn's prompt, and history snapshots, appended to one JSONL file and
 * fsync'd after each `result`.
 */
import type { AgentMessage, MessageParam } from '../messages/types.ts';
import type { TranscriptMirror } from '../messages/control.ts';
import { newUuid } from '../messages/ids.ts';
import type { ParentContext } from '../telemetry/types.ts';
import type { PromptLine, SnapshotLine, TitleLine } from './transcript-format.ts';
import { lockTranscript } from './transcript-lock.ts';
import { TranscriptWriter } from './transcript-writer.ts';

/**
 * What of the stream a transcript keeps: not the deltas and heartbeats (`stream_event`,
 * `tool_progress`), not the prompt echoes (the turn's prompt line holds the prompt), and not
 * `auth_status` (credentials of this run, not the conversation; Claude Code leaves it out too).
 */
export function keepsInTranscript(message: AgentMessage): boolean {
  if (message.type === 'stream_event' || message.type === 'tool_progress' || message.type === 'auth_status')
    return false;
  return !(message.type === 'user' && message.isReplay);
}

export class Transcript {
  readonly writer: TranscriptWriter;
  readonly sessionId: string;

  readonly #release: () => void;
  /** The uuid of the last main-thread user or assistant line written (the next one's `parentUuid`). */
  #lastUuid: string | null = null;
  #mirror?: { filePath: string; send: (line: TranscriptMirror) => Promise<void> | undefined };

  /** Takes the session's lock (SessionLockedError when another process writes it). */
  constructor(file: string, sessionId: string, log: (line: string) => void) {
    this.#release = lockTranscript(file, sessionId);
    this.writer = new TranscriptWriter(file, log);
    this.sessionId = sessionId;
  }

  /** Also sends every line to the client (`--session-mirror`), as the official SDK's session store expects. */
  mirrorTo(filePath: string, send: (line: TranscriptMirror) => Promise<void> | undefined): void {
    this.#mirror = { filePath, send };
  }

  /** Links the next main-thread user or assistant line to `uuid` (a resumed conversation's last line). */
  continueFrom(uuid: string | null): void {
    this.#lastUuid = uuid;
  }

  async #append(entry: object): Promise<void> {
    const line = this.#linked(entry);
    await this.writer.append(line);
    if (this.#mirror)
      await this.#mirror.send({
        type: 'transcript_mirror',
        filePath: this.#mirror.filePath,
        entries: [line as Record<string, unknown>],
      });
  }

  get file(): string {
    return this.writer.file;
  }

  /**
   * A main-thread user or assistant line with Claude Code's `parentUuid` (the line before it), which the official
   * SDK's `getSessionMessages()` follows back from the last one; other lines as they are.
   */
  #linked(line: object): object {
    const entry = line as { type?: unknown; uuid?: unknown; parent_tool_use_id?: unknown };
    if ((entry.type !== 'user' && entry.type !== 'assistant') || typeof entry.uuid !== 'string') return line;
    if (entry.parent_tool_use_id !== null && entry.parent_tool_use_id !== undefined) return line;
    const linked = { ...line, parentUuid: this.#lastUuid };
    this.#lastUuid = entry.uuid;
    return linked;
  }

  /** Records an emitted message a transcript keeps (`keepsInTranscript`); fsyncs after a result (a turn boundary). */
  async record(message: AgentMessage): Promise<void> {
    if (!keepsInTranscript(message)) return;
    const line =
      'timestamp' in message && message.timestamp ? message : { ...message, timestamp: new Date().toISOString() };
    await this.#append(line);
    if (message.type === 'result') await this.writer.sync();
  }

  /** Records the prompt of a turn (or a slash command), with the trace context it runs under. */
  recordPrompt(
    uuid: string,
    content: MessageParam['content'],
    { command, trace }: { command?: 'compact'; trace?: ParentContext } = {},
  ): Promise<void> {
    const line: PromptLine = {
      type: 'user',
      message: { role: 'user', content },
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid,
      timestamp: new Date().toISOString(),
      agentpipe_prompt: true,
      ...(command ? { agentpipe_command: command } : {}),
      ...(trace?.traceparent ? { _meta: { ...trace, traceparent: trace.traceparent } } : {}),
    };
    return this.#append(line);
  }

  /** Records context a hook added to the history (not emitted, but the model sees it). */
  recordContext(content: MessageParam['content']): Promise<void> {
    return this.#append({
      type: 'user',
      message: { role: 'user', content },
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid: newUuid(),
      timestamp: new Date().toISOString(),
      isSynthetic: true,
      agentpipe_context: true,
    });
  }

  /** Records the session's title (the last one wins). */
  recordTitle(title: string): Promise<void> {
    const line: TitleLine = {
      type: 'custom-title',
      customTitle: title,
      session_id: this.sessionId,
      timestamp: new Date().toISOString(),
    };
    return this.#append(line);
  }

  /** Records the whole model-facing history as it is from now on. */
  snapshot(
    reason: SnapshotLine['reason'],
    history: MessageParam[],
    extra: Pick<SnapshotLine, 'seen_uuids' | 'from'> = {},
  ): Promise<void> {
    const line: SnapshotLine = {
      type: 'agentpipe_snapshot',
      reason,
      history,
      ...extra,
      session_id: this.sessionId,
      uuid: newUuid(),
      timestamp: new Date().toISOString(),
    };
    return this.#append(line);
  }

  async close(): Promise<void> {
    try {
      await this.writer.close();
    } finally {
      this.#release();
    }
  }
}
