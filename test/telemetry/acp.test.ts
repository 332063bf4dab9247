/**
 * One trace across ACP, both ways: agentpipe with `--harness acp` sends its prompt span in session/prompt's `_meta`,
 * and `agentpipe acp` (the agent it wraps here) starts that prompt's span under it. Both processes export to one
 * loopback receiver.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI_PATH, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { otlpEnv, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const CALLER = { trace: '5bf92f3577b34da6a3ce929d0e0e4737', span: '10f067aa0ba902b8' };

test('ACP: the agent’s prompt span is a child of the client’s, from session/prompt _meta', async () => {
  const receiver = await startOtlpReceiver();
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'Across ACP.' }]);
  const result = await runCli(
    [
      '-p',
      'hi',
      '--harness',
      'acp',
      '--harness-command',
      `${process.execPath} ${CLI_PATH} acp --model scripted --script ${script}`,
      '--output-format',
      'json',
    ],
    { cwd: dir, env: otlpEnv(receiver, { TRACEPARENT: `00-${CALLER.trace}-${CALLER.span}-01` }), timeoutMs: 60_000 },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal((JSON.parse(result.stdout) as { result: string }).result, 'Across ACP.');
  const agents = receiver.spans.filter((s) => s.name === 'invoke_agent agentpipe');
  assert.equal(agents.length, 2, JSON.stringify(receiver.spans.map((s) => s.name)));
  const client = agents.find((s) => s.parentSpanId === CALLER.span);
  assert.ok(client, 'the client’s prompt span is under the caller’s');
  assert.equal(client.attributes['gen_ai.provider.name'], 'acp');
  const agent = agents.find((s) => s !== client)!;
  assert.equal(agent.parentSpanId, client.spanId, 'the agent’s prompt span is under the client’s');
  assert.equal(agent.traceId, CALLER.trace);
  assert.ok(receiver.spans.some((s) => s.name === 'chat scripted' && s.parentSpanId === agent.spanId));
});
