/**
 * The GenAI semantic conventions agentpipe emits (OpenTelemetry semantic conventions 1.45, status: development).
 * They live in `@opentelemetry/semantic-conventions/incubating`, an 850 kB module, so they are copied here as the
 * package's README asks of users of incubating names; so are the stable ones used (its stable entry alone is a
 * 400 kB chunk of the bundle, ~60 ms of a run's start with telemetry on).
 */
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_SERVICE_NAME = 'service.name';
export const ATTR_SERVICE_VERSION = 'service.version';
export const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';
export const ATTR_PROCESS_PID = 'process.pid';

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  tokenType: 'gen_ai.token.type',
} as const;

export const GEN_AI_METRICS = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
} as const;

/** agentpipe's own attributes (no convention covers them). */
export const AGENTPIPE = {
  costUsd: 'agentpipe.cost_usd',
  resultSubtype: 'agentpipe.result.subtype',
  exitCode: 'process.exit.code',
  mcpServer: 'mcp.server.name',
} as const;

/** Bucket boundaries the conventions advise for the two GenAI client histograms. */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
export const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
