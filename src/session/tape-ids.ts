/**
 * A replay carries the ids and clock values the recorded run drew, where a client sees them: each message of the
 * replay is paired with the recorded message it stands for, and takes that one's `uuid` and its time fields
 * (`timestamp`, `duration_ms`, the ttft marks ...). Pairs are found by what the message is (its type, subtype and
 * agent) and by its own identity where the run reproduces one (a tool_use id, a content block of a message id, a
 * stream event's index), else in order; concurrent tool results pair with their own records whichever finishes first.
 */
import type { AgentMessage } from '../messages/types.ts';
import { isRecord } from '../process/guards.ts';

/** Top-level fields that hold clock values. */
export const CLOCK_FIELDS = [
  'timestamp',
  'duration_ms',
  'duration_api_ms',
  'ttft_ms',
  'ttft_stream_ms',
  'time_to_request_ms',
  'retry_delay_ms',
  'first_content_frame_ms',
] as const;
/**
 * Top-level fields a run draws from its process rather than from the session: `result_index` counts the results of
 * one process, so a session recorded across a resume starts it again at 0 where the replay (one process) does not.
 */
const RUN_FIELDS = ['result_index'] as const;
/** Clock values of `tool_use_result` (Glob, WebFetch, Task) and of task messages' `usage`. */
export const NESTED_CLOCK_FIELDS = ['durationMs', 'totalDurationMs', 'durationSeconds', 'duration_ms'] as const;
/** Those, and the id a subagent drew for itself (Task's `agentId`). */
const NESTED_DRAWN_FIELDS = [...NESTED_CLOCK_FIELDS, 'agentId'] as const;

interface Slot {
  message: AgentMessage;
  used: boolean;
}

/** A queue of slots that skips the ones already taken through another queue. */
class Queue {
  readonly slots: Slot[] = [];
  #next = 0;
  take(): Slot | undefined {
    while (this.#next < this.slots.length && this.slots[this.#next]!.used) this.#next++;
    const slot = this.slots[this.#next];
    if (slot) slot.used = true;
    return slot;
  }
}

/** What kind of message this is: type, subtype and the agent it belongs to. */
function classOf(message: AgentMessage): string {
  const subtype = 'subtype' in message ? message.subtype : '';
  const parent = 'parent_tool_use_id' in message ? (message.parent_tool_use_id ?? '') : '';
  return `${message.type}/${subtype}/${parent}`;
}

/** Which one of its kind it is, where the run reproduces that. */
function identityOf(message: AgentMessage): string {
  switch (message.type) {
    case 'assistant': {
      const block = message.message.content[0];
      return `${message.message.id}/${block?.type ?? ''}/${block?.type === 'tool_use' ? block.id : ''}`;
    }
    case 'user': {
      if ('isReplay' in message && message.isReplay) return 'prompt';
      const content = message.message.content;
      const result = Array.isArray(content) ? content.find((b) => b.type === 'tool_result') : undefined;
      return result && 'tool_use_id' in result ? `result/${result.tool_use_id}` : 'text';
    }
    case 'stream_event':
      return `${message.event.type}/${'index' in message.event ? message.event.index : ''}`;
    case 'system':
      return 'task_id' in message ? String(message.task_id) : '';
    default:
      return '';
  }
}

/** The recorded ids and clock values, handed to the replay's messages. */
export class RecordedIds {
  readonly #byIdentity = new Map<string, Queue>();
  readonly #byClass = new Map<string, Queue>();

  constructor(recorded: AgentMessage[]) {
    for (const message of recorded) {
      const slot: Slot = { message, used: false };
      for (const [map, key] of [
        [this.#byIdentity, `${classOf(message)}#${identityOf(message)}`],
        [this.#byClass, classOf(message)],
      ] as const) {
        let queue = map.get(key);
        if (!queue) map.set(key, (queue = new Queue()));
        queue.slots.push(slot);
      }
    }
  }

  /** `message` with the ids and clock values of its recorded pair; itself when it has none. */
  apply(message: AgentMessage): AgentMessage {
    const kind = classOf(message);
    const slot = this.#byIdentity.get(`${kind}#${identityOf(message)}`)?.take() ?? this.#byClass.get(kind)?.take();
    if (!slot) return message;
    // A prompt's uuid is the prompt's own (the client's, or the recorded one the session gave it): kept.
    const uuid =
      message.type === 'user' && 'isReplay' in message && message.isReplay ? message.uuid : slot.message.uuid;
    return withClockOf({ ...message, uuid } as AgentMessage, slot.message);
  }
}

/** `message` with the clock values `recorded` has where it has them too. */
function withClockOf(message: AgentMessage, recorded: AgentMessage): AgentMessage {
  // Fields of any message type, by name: read and set through Reflect (the union has no common index).
  const mine = (field: string): unknown => Reflect.get(message, field);
  const theirs = (field: string): unknown => Reflect.get(recorded, field);
  for (const field of [...CLOCK_FIELDS, ...RUN_FIELDS])
    if (field in message && field in recorded) Reflect.set(message, field, theirs(field));
  for (const holder of ['tool_use_result', 'usage'] as const) {
    const [own, their] = [mine(holder), theirs(holder)];
    if (!isRecord(own) || !isRecord(their)) continue;
    let copy: Record<string, unknown> | undefined;
    for (const field of NESTED_DRAWN_FIELDS)
      if (field in own && field in their) (copy ??= { ...own })[field] = their[field];
    if (copy) Reflect.set(message, holder, copy);
  }
  return message;
}
