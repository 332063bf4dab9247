/**
 * The API's own event beside a provider's normalised one. The agent loop reads the normalised event (every member
 * present, null where the API sent none, indices renumbered past dropped blocks); a `stream_event` message carries
 * the event as the API sent it, as Claude Code 2.1.332 passes its stream on. The wire form rides on the normalised
 * event under a hidden symbol, so it is never serialised with it (a tape keeps the normalised event) and costs
 * nothing where a provider has none to give (its own events are its wire form).
 */
import type { StreamEvent } from '../messages/types.ts';

const WIRE = Symbol('agentpipe.wireEvent');

type Carrier = StreamEvent & { [WIRE]?: StreamEvent };

/**
 * Keeps `wire` (the API's event, parsed) as what a `stream_event` message shows for `event`. The API's event has the
 * same members agentpipe reads, some left out where agentpipe's have null: it is typed as the event it came as.
 */
export function keepWire(event: StreamEvent, wire: object): void {
  // Not enumerable: copies and comparisons of the event see the normalised event alone.
  Object.defineProperty(event, WIRE, { value: wire, enumerable: false });
}

/** The event as a `stream_event` message carries it: the API's own when the provider kept it, else `event`. */
export function wireOf(event: StreamEvent): StreamEvent {
  return (event as Carrier)[WIRE] ?? event;
}
