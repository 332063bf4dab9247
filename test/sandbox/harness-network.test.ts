/**
 * A wrapped CLI's network in the harness profile, through the real CLI: Claude Code (the real
 * `claude` from test/harness/clis) reaches its fake API on this machine's loopback (forwarded into
 * its sandbox at the same address) and nothing else of the user's: the Bash command it runs finds
 * another loopback port refused, directly and through the egress proxy (403).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { anthropicBlock, anthropicStream, startFakeServer, type RecordedRequest } from '../model/fake-servers.ts';
import { claudeOfflineEnv, harnessDirs, testPath } from '../harness/helpers.ts';
import { parseLines, runCli } from '../helpers/cli.ts';

/** Bash: the other port directly, then a CONNECT to it through $HTTPS_PROXY (the first line of the answer). */
const probe = (port: number) =>
  `(exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3) 2>/dev/null || echo "direct ${port} refused"; ` +
  `exec 4<>/dev/tcp/127.0.0.1/\${HTTPS_PROXY##*:} && ` +
  `printf 'CONNECT 127.0.0.1:${port} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n' >&4 && head -1 <&4`;

function lastToolResult(request: RecordedRequest): string | undefined {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const content = messages.at(-1)?.content;
  if (!Array.isArray(content)) return undefined;
  const block = (content as Array<{ type: string; content?: unknown }>).find((b) => b.type === 'tool_result');
  return block ? JSON.stringify(block.content) : undefined;
}

test('--harness claude in the sandbox: the CLI reaches its fake API, its command not another loopback port', async () => {
  const secret = net.createServer((socket) => socket.end('user-service-reached\n'));
  secret.listen(0, '127.0.0.1');
  await once(secret, 'listening');
  const port = (secret.address() as net.AddressInfo).port;
  const results: string[] = [];
  const api = await startFakeServer((request) => {
    if (request.method !== 'POST' || !request.path.startsWith('/v1/messages') || request.path.includes('count_tokens'))
      return { kind: 'json', status: 200, body: { input_tokens: 1 } };
    const result = lastToolResult(request);
    if (result === undefined)
      return {
        kind: 'sse',
        frames: anthropicStream(
          [
            anthropicBlock(0, { type: 'tool_use', id: 'toolu_net', name: 'Bash', input: {} }, [
              { type: 'input_json_delta', partial_json: JSON.stringify({ command: probe(port) }) },
            ]),
          ],
          'tool_use',
        ),
      };
    results.push(result);
    return {
      kind: 'sse',
      frames: anthropicStream(
        [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'checked' }])],
        'end_turn',
      ),
    };
  });
  const { home, cwd } = harnessDirs('sandbox-network');
  try {
    const env = { ...process.env, ...claudeOfflineEnv(api.url, home), PATH: testPath(), AGENTPIPE_PASS_ENV: '' };
    const run = await runCli(
      [
        '-p',
        'go',
        '--harness',
        'claude',
        '--base-url',
        api.url,
        '--allowedTools',
        'Bash',
        '--output-format',
        'stream-json',
        '--verbose',
      ],
      { cwd, env, timeoutMs: 120_000 },
    );
    assert.equal(run.code, 0, run.stderr);
    const result = parseLines(run.stdout).at(-1)!;
    assert.equal(result.type, 'result');
    assert.equal(result.subtype, 'success', run.stderr);
    assert.equal(result.result, 'checked', 'the CLI reached its API for both turns');
    assert.equal(results.length, 1);
    assert.match(results[0]!, new RegExp(`direct ${port} refused`));
    assert.match(results[0]!, /HTTP\/1\.1 403 Forbidden/);
    assert.doesNotMatch(results[0]!, /user-service-reached/);
    assert.match(
      run.stderr,
      new RegExp(`refused a sandboxed command's connection: the address 127\\.0\\.0\\.1:${port}`),
    );
  } finally {
    await api.close();
    secret.close();
  }
});
