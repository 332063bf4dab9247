/**
 * One trace across a wrapped CLI: `--harness claude` runs the real Claude Code (test/harness/clis) against a fake
 * Messages API with its own telemetry on; agentpipe hands it the prompt's span as TRACEPARENT, so Claude Code's spans
 * land in agentpipe's trace, under agentpipe's `invoke_agent` span, at the same loopback receiver.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';
import { claudeOfflineEnv, harnessDirs, testPath } from '../harness/helpers.ts';
import { otlpEnv, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

/** The offline environment with Claude Code's telemetry left on (it turns it off by default). */
function withoutTelemetryOff(env: Record<string, string>): Record<string, string> {
  const { DISABLE_TELEMETRY: _, ...rest } = env;
  return rest;
}

test("--harness claude: Claude Code's own spans nest under agentpipe's prompt span in one trace", async () => {
  const api = await startFakeServer((request) =>
    request.method === 'POST' && request.path.startsWith('/v1/messages') && request.body?.stream === true
      ? {
          kind: 'sse',
          frames: anthropicStream(
            [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Traced.' }])],
            'end_turn',
          ),
        }
      : { kind: 'json', status: 200, body: { input_tokens: 1 } },
  );
  const receiver = await startOtlpReceiver();
  const { home, cwd } = harnessDirs('otel-claude');
  try {
    const result = await runCli(['-p', 'hi', '--harness', 'claude', '--base-url', api.url, '--output-format', 'json'], {
      cwd,
      timeoutMs: 90_000,
      env: {
        ...process.env,
        ...otlpEnv(receiver, { TRACEPARENT: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }),
        ...withoutTelemetryOff(claudeOfflineEnv(api.url, home)),
        PATH: testPath(),
        AGENTPIPE_PASS_ENV: '',
        // Claude Code's own telemetry, traces included (its beta), to the same receiver.
        CLAUDE_CODE_ENABLE_TELEMETRY: '1',
        CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
        OTEL_TRACES_EXPORT_INTERVAL: '100',
        OTEL_METRIC_EXPORT_INTERVAL: '100',
      },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as { result: string }).result, 'Traced.');
    const ours = receiver.spans.find((s) => s.name === 'invoke_agent agentpipe');
    assert.ok(ours, `agentpipe's span: ${receiver.spans.map((s) => s.name).join(', ')}`);
    assert.equal(ours.parentSpanId, CALLER_SPAN);
    assert.equal(ours.attributes['gen_ai.provider.name'], 'claude');
    const theirs = receiver.spans.filter((s) => s.resource['service.name'] !== 'agentpipe');
    assert.ok(theirs.length > 0, `Claude Code's spans: ${JSON.stringify(receiver.spans.map((s) => s.name))}`);
    assert.deepEqual([...new Set(receiver.spans.map((s) => s.traceId))], [CALLER_TRACE], 'one trace');
    const interaction = theirs.find((s) => s.name === 'claude_code.interaction');
    assert.equal(interaction?.parentSpanId, ours.spanId, "Claude Code's interaction is a child of agentpipe's span");
  } finally {
    await api.close();
  }
});
