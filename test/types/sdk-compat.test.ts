/**
 * Our wire types are assignable to the official Claude Agent SDK's: checked by tsc
 * (`npm test` type-checks test/ first), with one runtime assertion so the file also runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  SDKAssistantMessage, SDKAuthStatusMessage, SDKCompactBoundaryMessage, SDKHookResponseMessage, SDKMessage,
  SDKPartialAssistantMessage, SDKResultMessage, SDKStatusMessage, SDKSystemMessage, SDKToolProgressMessage,
  SDKUserMessage, SDKPermissionDenial, SDKAPIRetryMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type {
  AgentMessage, ApiRetryMessage, AssistantMessage, AuthStatusMessage, CompactBoundaryMessage, HookResponseMessage,
  McpServerStatusMessage, ModelFallbackMessage, PermissionDenial, ResultMessage, StatusMessage, StreamEventMessage, SystemInitMessage, ToolProgressMessage, UserMessage,
} from '../../src/messages/types.ts';

/** Compiles only when `Ours` is assignable to `Theirs`. */
type Assignable<Theirs, Ours extends Theirs> = Ours;

export type Checks = [
  Assignable<SDKSystemMessage, SystemInitMessage>,
  Assignable<SDKAssistantMessage, AssistantMessage>,
  Assignable<SDKUserMessage, UserMessage>,
  Assignable<SDKPartialAssistantMessage, StreamEventMessage>,
  Assignable<SDKToolProgressMessage, ToolProgressMessage>,
  Assignable<SDKAuthStatusMessage, AuthStatusMessage>,
  Assignable<SDKStatusMessage, StatusMessage>,
  Assignable<SDKCompactBoundaryMessage, CompactBoundaryMessage>,
  Assignable<SDKHookResponseMessage, HookResponseMessage>,
  Assignable<SDKAPIRetryMessage, ApiRetryMessage>,
  Assignable<SDKResultMessage, ResultMessage>,
  Assignable<SDKPermissionDenial, PermissionDenial>,
  // agentpipe's additive extensions (unknown to the SDK, which passes unknown types through) aside:
  Assignable<SDKMessage, Exclude<AgentMessage, McpServerStatusMessage | ModelFallbackMessage>>,
];

test('the wire types are assignable to the official SDK types (checked by tsc)', () => {
  const message: SDKMessage = { type: 'auth_status', isAuthenticating: false, output: [], uuid: '0-0-0-0-0', session_id: 's' } satisfies AgentMessage;
  assert.equal(message.type, 'auth_status');
});
