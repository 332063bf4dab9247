/** Every line agentpipe writes on a stream-json output: the root of the published JSON Schema. */
import type { AgentMessage } from './types.ts';
import type { ControlOutput } from './control.ts';

export type OutputLine = AgentMessage | ControlOutput;

/**
 * A message agentpipe wrote itself, read back (its child CLI's stdout, its transcript): its `type` was checked where
 * it entered, its other fields are passed on as written. The one place such a value becomes an AgentMessage without a
 * schema of every field; what the CLI writes is checked against the union's JSON Schema in the tests (invariant 8).
 * Data from anything agentpipe did not write (a wrapped CLI, a client) is parsed with its own schema instead.
 */
export function ownMessage(value: { type: string }): AgentMessage {
  return value as AgentMessage;
}
