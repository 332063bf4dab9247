/** `agentpipe acp` takes the model and session flags of `agentpipe` (one set of options everywhere). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { OPENAI_DONE, openaiChunk, openaiUsage, startFakeServer } from '../model/fake-servers.ts';
import { withAcpAgent } from './client.ts';

const MCP = JSON.stringify({
  mcpServers: { calc: { command: process.execPath, args: [path.join(ROOT, 'test/fixtures/mcp-test-server.ts')] } },
});

test('acp: --disallowedTools hides a tool, --mcp-config tools run, --append-system-prompt reaches the model', async () => {
  const cwd = tempDir();
  let n = 0;
  const server = await startFakeServer(() =>
    n++ === 0
      ? {
          kind: 'sse',
          frames: [
            openaiChunk({
              tool_calls: [
                {
                  index: 0,
                  id: 'call_add',
                  type: 'function',
                  function: { name: 'mcp__calc__add', arguments: '{"a": 2, "b": 3}' },
                },
              ],
            }),
            openaiChunk({}, 'tool_calls'),
            openaiUsage(30, 5),
            OPENAI_DONE,
          ],
        }
      : {
          kind: 'sse',
          frames: [openaiChunk({ content: 'It is 5.' }), openaiChunk({}, 'stop'), openaiUsage(40, 4), OPENAI_DONE],
        },
  );
  try {
    const args = [
      '--base-url',
      `${server.url}/v1`,
      '--model',
      'local-model',
      '--disallowedTools',
      'Bash',
      '--mcp-config',
      MCP,
      '--append-system-prompt',
      'Answer in one line.',
    ];
    const { value } = await withAcpAgent(
      args,
      async (ctx, recorded) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
        const answer = await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'What is 2 + 3?' }],
        });
        return { answer, updates: recorded.updates.map((u) => u.update) };
      },
      () => 'allow',
      { AGENTPIPE_HOME: tempDir() },
    );
    assert.equal(value.answer.stopReason, 'end_turn');
    const tools = server.requests[0].body.tools.map((t: { function: { name: string } }) => t.function.name);
    assert.ok(!tools.includes('Bash'), `Bash is hidden: ${tools}`);
    assert.ok(tools.includes('Read') && tools.includes('mcp__calc__add'), `the others are there: ${tools}`);
    assert.ok(JSON.stringify(server.requests[0].body.messages[0]).includes('Answer in one line.'));
    const add = value.updates.filter((u) => u.toolCallId === 'call_add');
    assert.deepEqual(
      [add[0].sessionUpdate, add.at(-1)!.status, add.at(-1)!.content[0].content.text],
      ['tool_call', 'completed', '5'],
    );
    assert.deepEqual(server.requests[1].body.messages.at(-1), { role: 'tool', tool_call_id: 'call_add', content: '5' });
  } finally {
    await server.close();
  }
});

test('acp: --max-turns gives max_turn_requests, --permission-mode sets the mode, --no-session-persistence saves nothing', async () => {
  const cwd = tempDir({ 'a.txt': 'a' });
  const home = tempDir();
  const script = writeScript(cwd, [
    { tool_calls: [{ name: 'Read', input: { file_path: 'a.txt' } }] },
    { text: 'never reached' },
  ]);
  const args = [
    '--model',
    'scripted',
    '--script',
    script,
    '--max-turns',
    '1',
    '--permission-mode',
    'acceptEdits',
    '--no-session-persistence',
  ];
  const { value } = await withAcpAgent(
    args,
    async (ctx) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const session = await ctx.request('session/new', { cwd, mcpServers: [] });
      const answer = await ctx.request('session/prompt', {
        sessionId: session.sessionId,
        prompt: [{ type: 'text', text: 'read it' }],
      });
      const listed = await ctx.request('session/list', { cwd });
      return {
        mode: session.modes?.currentModeId,
        stopReason: answer.stopReason,
        listed: listed.sessions.map((s) => s.sessionId),
        sessionId: session.sessionId,
      };
    },
    () => 'allow',
    { AGENTPIPE_HOME: home },
  );
  assert.equal(value.stopReason, 'max_turn_requests');
  assert.equal(value.mode, 'acceptEdits');
  assert.deepEqual(value.listed, [value.sessionId], 'the live session is listed');
  assert.deepEqual(readdirSync(home), [], 'no transcript written');
});

test('acp: bad flags are usage errors on stderr (exit 1); --help shows the shared flags', async () => {
  for (const [args, message] of [
    [['--max-turns', '0'], /--max-turns must be a whole number/],
    [['--cwd', '/no/such/folder'], /--cwd \/no\/such\/folder: no such folder/],
    [['--mcp-config', '{"mcpServers": '], /--mcp-config: invalid JSON/],
    [['--model', 'scripted', '--script', '/no/such/script.json'], /--script .*no such file/],
    [['--resume', 'x'], /unknown option '--resume'/],
  ] as Array<[string[], RegExp]>) {
    const run = await runCli(['acp', ...args], { timeoutMs: 10_000 });
    assert.equal(run.code, 1, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.equal(run.stdout, '', 'nothing on the protocol channel');
  }
  const help = await runCli(['acp', '--help']);
  for (const flag of [
    '--model',
    '--base-url',
    '--mcp-config',
    '--settings',
    '--agents',
    '--disallowedTools',
    '--max-budget-usd',
    '--no-session-persistence',
    '--no-partial-messages',
  ]) {
    assert.ok(help.stdout.includes(flag), `acp --help shows ${flag}`);
  }
});
