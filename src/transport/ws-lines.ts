/**
 * What both WebSocket transports share: frames carry NDJSON (a frame may hold several lines),
 * and two transport-level messages never reach the session:
 * - `{"type":"keep_alive","ack":N}`: the client has every output line up to N (counted from 1
 *   over the whole run, keep_alive lines included); `--sdk-url` forgets them and resends the rest
 *   after a reconnect. A plain `{"type":"keep_alive"}` is only a heartbeat.
 * - `{"type":"end_input"}`: the client sends nothing more (like stdin EOF): queued prompts finish,
 *   their output is sent, then the CLI closes the connection normally.
 */
import { envNumber } from '../process/env-number.ts';
import { parseInputLine, type ParsedLine } from '../messages/parse.ts';
import { isRecord } from '../process/guards.ts';

/** What one input line means to the transport. */
export type WsInput = { kind: 'ack'; ack: number } | { kind: 'end_input' } | { kind: 'message'; parsed: ParsedLine };

/** Classifies one line; transport messages are recognised before the session parser. */
export function classifyLine(line: string): WsInput {
  if (line.includes('"end_input"') || line.includes('"ack"')) {
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value) && value.type === 'end_input') return { kind: 'end_input' };
      if (
        isRecord(value) &&
        value.type === 'keep_alive' &&
        typeof value.ack === 'number' &&
        Number.isInteger(value.ack)
      )
        return { kind: 'ack', ack: value.ack };
    } catch {
      // Not JSON: the session parser reports it.
    }
  }
  return { kind: 'message', parsed: parseInputLine(line) };
}

/** The line the transports send as a heartbeat. */
export const KEEP_ALIVE_LINE = '{"type":"keep_alive"}\n';

/** Positive integer from the environment, or the fallback. */
export function envInt(name: string, fallback: number): number {
  return envNumber(name, fallback, { integer: true });
}
