/**
 * Where a run's stream goes: every line the session emits, typed and in order, encoded once and
 * handed to the appender (no NDJSON text in between). Transcript-only lines (the prompt of each
 * turn, hook context, snapshots, titles) come from the session's transcript mirror and join the
 * log too, so the log is a complete transcript. The requests the run sends the client get the
 * run's tag; the answers to state requests handled again after a takeover stay out of the log
 * (the client had them from the old owner).
 */
import type { OutputLine } from '../../messages/wire.ts';
import { isTranscriptOnly, type AppendRecord, type SessionLog } from '../log/index.ts';
import type { Appender } from './appender.ts';

/** What the output needs. */
export interface RunOutputOptions {
  log: SessionLog;
  appender: Appender;
  /** This run's request tag. */
  tag: string;
  /** Ids of state requests handled again (their answers stay out of the log). */
  silent: Set<string>;
  /** The client asked for `transcript_mirror` lines itself (the official SDK's session store). */
  clientMirror: boolean;
  /** A prompt's line is in the log: it started. */
  started: (uuid: string) => void;
  /** The run wrote something (a warm session that wrote anything is not discarded). */
  wrote: () => void;
  /** A prompt's result went out. */
  result: () => void;
}

export class RunOutput {
  readonly #o: RunOutputOptions;
  constructor(o: RunOutputOptions) {
    this.#o = o;
  }

  /** Takes one line of the session's stream; resolves at once unless the appender holds the producer back. */
  send(line: OutputLine): Promise<void> {
    const o = this.#o;
    if (line.type === 'transcript_mirror') {
      const records: AppendRecord[] = [];
      for (const entry of line.entries) {
        if (typeof entry.type !== 'string' || !isTranscriptOnly({ ...entry, type: entry.type })) continue;
        const uuid = typeof entry.uuid === 'string' ? entry.uuid : '';
        records.push({ kind: 'd', uuid, json: JSON.stringify(entry) });
        if (entry.agentpipe_prompt === true && uuid) o.started(uuid);
      }
      if (o.clientMirror) records.push(...o.log.encode([line]));
      if (records.length) o.wrote();
      return o.appender.push(records);
    }
    // The answer to a state request handled again after a takeover: the client had its answer from the old owner.
    if (line.type === 'control_response' && o.silent.delete(line.response.request_id)) return Promise.resolve();
    const tagged =
      line.type === 'control_request' || line.type === 'control_cancel_request'
        ? { ...line, request_id: `${line.request_id}@${o.tag}` }
        : line;
    o.wrote();
    const pushed = o.appender.push(o.log.encode([tagged]));
    if (line.type === 'result') o.result();
    return pushed;
  }
}
