/** The contract of an output format: messages in, text out. */
import type { OutputLine } from '../../messages/wire.ts';

export type { OutputLine };

/** Turns the stream into the bytes a format writes. */
export interface OutputFormat {
  /** Text to write as soon as `line` is produced, if any. */
  line(line: OutputLine): string | undefined;
  /** Text to write once the run ended. */
  end(): string | undefined;
}

/** Options every format may need for its messages. */
export interface FormatContext {
  maxTurns?: number;
  maxBudgetUsd?: number;
}

/** Lines that belong to the protocol, not to the conversation. */
export function isProtocolLine(line: OutputLine): boolean {
  return (
    line.type === 'control_request' ||
    line.type === 'control_response' ||
    line.type === 'control_cancel_request' ||
    line.type === 'keep_alive'
  );
}
