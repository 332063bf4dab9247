/**
 * Our wire types are assignable to the official Claude Agent SDK's: checked by tsc
 * (`npm test` type-checks test/ first), with one runtime assertion so the file also runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  SDKAssistantMessage,
  SDKAuthStatusMessage,
  SDKCompactBoundaryMessage,
  SDKHookResponseMessage,
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKResultMessage,
  SDKResultSuccess,
  SDKStatusMessage,
  SDKSystemMessage,
  SDKToolProgressMessage,
  SDKUserMessage,
  SDKPermissionDenial,
  SDKAPIRetryMessage,
  SDKHookStartedMessage,
  SDKTaskStartedMessage,
  SDKTaskProgressMessage,
  SDKTaskNotificationMessage,
  SDKPermissionDeniedMessage,
  SDKInformationalMessage,
  SDKNotificationMessage,
  SDKControlGetUsageResponse,
  SDKControlInterruptResponse,
  SDKControlListPermissionRulesResponse,
} from '@anthropic-ai/claude-agent-sdk';
import type {
  AgentMessage,
  ApiRetryMessage,
  AssistantMessage,
  AuthStatusMessage,
  CompactBoundaryMessage,
  HookResponseMessage,
  HookStartedMessage,
  TaskStartedMessage,
  TaskProgressMessage,
  TaskNotificationMessage,
  PermissionDeniedMessage,
  InformationalMessage,
  NotificationMessage,
  McpServerStatusMessage,
  ModelFallbackMessage,
  WorkerLostMessage,
  PermissionDenial,
  ResultMessage,
  ResultSuccessMessage,
  StatusMessage,
  StreamEventMessage,
  SystemInitMessage,
  ToolProgressMessage,
  UserMessage,
} from '../../src/messages/types.ts';

/** Compiles only when `Ours` is assignable to `Theirs`. */
type Assignable<Theirs, Ours extends Theirs> = Ours;

/** `T` with its nullable members optional (each member of a union on its own). */
type NullsOptional<T> = T extends unknown
  ? { [K in keyof T as null extends T[K] ? K : never]?: T[K] } & {
      [K in keyof T as null extends T[K] ? never : K]: T[K];
    }
  : never;
type SdkApiMessage = SDKAssistantMessage['message'];
/**
 * An answer's message as Claude Code 2.1.332 sends it, which its SDK's type (the API's BetaMessage) over-states: the
 * API's null members (`container`, `diagnostics`, `stop_details`, a text block's `citations`, usage members the API
 * did not send) are left out. agentpipe's assistant messages and stream events are checked against this.
 */
type SentApiMessage = NullsOptional<Omit<SdkApiMessage, 'usage' | 'content'>> & {
  usage: NullsOptional<SdkApiMessage['usage']>;
  content: Array<NullsOptional<SdkApiMessage['content'][number]>>;
};
type SentAssistantMessage = Omit<SDKAssistantMessage, 'message'> & { message: SentApiMessage };
type SdkEvent = SDKPartialAssistantMessage['event'];
type SdkDeltaEvent = Extract<SdkEvent, { type: 'content_block_delta' }>;
type SdkMessageDelta = Extract<SdkEvent, { type: 'message_delta' }>;
/**
 * A stream event as Claude Code 2.1.332 passes it on: the API's own, so the null members the API did not send are
 * absent (measured: a thinking delta's `estimated_tokens`, `message_delta`'s `context_management`, `container`,
 * `stop_details` and its usage members but `output_tokens`).
 */
type SentPartialAssistantMessage = Omit<SDKPartialAssistantMessage, 'event'> & {
  event:
    | Exclude<SdkEvent, { type: 'message_start' | 'content_block_start' | 'content_block_delta' | 'message_delta' }>
    | { type: 'message_start'; message: SentApiMessage }
    | (Omit<Extract<SdkEvent, { type: 'content_block_start' }>, 'content_block'> & {
        content_block: NullsOptional<Extract<SdkEvent, { type: 'content_block_start' }>['content_block']>;
      })
    | (Omit<SdkDeltaEvent, 'delta'> & { delta: NullsOptional<SdkDeltaEvent['delta']> })
    | (NullsOptional<Omit<SdkMessageDelta, 'delta' | 'usage'>> & {
        type: 'message_delta';
        delta: NullsOptional<SdkMessageDelta['delta']>;
        usage: NullsOptional<SdkMessageDelta['usage']>;
      });
};
type SentMessage =
  | Exclude<SDKMessage, SDKAssistantMessage | SDKPartialAssistantMessage>
  | SentAssistantMessage
  | SentPartialAssistantMessage;

export type Checks = [
  Assignable<SDKSystemMessage, SystemInitMessage>,
  Assignable<SentAssistantMessage, AssistantMessage>,
  Assignable<SDKUserMessage, UserMessage>,
  Assignable<SentPartialAssistantMessage, StreamEventMessage>,
  Assignable<SDKToolProgressMessage, ToolProgressMessage>,
  Assignable<SDKAuthStatusMessage, AuthStatusMessage>,
  Assignable<SDKStatusMessage, StatusMessage>,
  Assignable<SDKCompactBoundaryMessage, CompactBoundaryMessage>,
  Assignable<SDKHookResponseMessage, HookResponseMessage>,
  Assignable<SDKAPIRetryMessage, ApiRetryMessage>,
  Assignable<SDKResultMessage, ResultMessage>,
  // A prompt that ended on a failed model request: success, is_error, api_error_status (as Claude Code).
  Assignable<SDKResultSuccess, ResultSuccessMessage & { is_error: true; api_error_status: number | null }>,
  Assignable<SDKPermissionDenial, PermissionDenial>,
  Assignable<SDKHookStartedMessage, HookStartedMessage>,
  Assignable<SDKTaskStartedMessage, TaskStartedMessage>,
  Assignable<SDKTaskProgressMessage, TaskProgressMessage>,
  Assignable<SDKTaskNotificationMessage, TaskNotificationMessage>,
  Assignable<SDKPermissionDeniedMessage, PermissionDeniedMessage>,
  Assignable<SDKInformationalMessage, InformationalMessage>,
  Assignable<SDKNotificationMessage, NotificationMessage>,
  // The control answers typed in the SDK (control-info.ts builds them).
  Assignable<SDKControlInterruptResponse, { still_queued: string[]; cancelled?: string[] }>,
  Assignable<
    SDKControlGetUsageResponse['session'],
    {
      total_cost_usd: number;
      total_api_duration_ms: number;
      total_duration_ms: number;
      total_lines_added: number;
      total_lines_removed: number;
      model_usage: Record<string, import('@anthropic-ai/claude-agent-sdk').ModelUsage>;
    }
  >,
  Assignable<
    SDKControlListPermissionRulesResponse['state']['rules'][number],
    {
      behavior: 'allow' | 'deny';
      source: 'cliArg' | 'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings';
      rule: string;
      editability: 'session' | 'persistent';
    }
  >,
  // agentpipe's additive extensions (unknown to the SDK, which passes unknown types through) aside:
  Assignable<SentMessage, Exclude<AgentMessage, McpServerStatusMessage | ModelFallbackMessage | WorkerLostMessage>>,
];

test('the wire types are assignable to the official SDK types (checked by tsc)', () => {
  const message: SDKMessage = {
    type: 'auth_status',
    isAuthenticating: false,
    output: [],
    uuid: '0-0-0-0-0',
    session_id: 's',
  } satisfies AgentMessage;
  assert.equal(message.type, 'auth_status');
});
