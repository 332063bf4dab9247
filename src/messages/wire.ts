/** Every line agentpipe writes on a stream-json output: the root of the published JSON Schema. */
import type { AgentMessage } from './types.ts';
import type { ControlOutput } from './control.ts';

export type OutputLine = AgentMessage | ControlOutput;
