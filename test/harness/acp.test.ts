/**
 * The ACP harness against real ACP agents: `agentpipe acp` on the scripted model (the round trip
 * of our stream through ACP and back), a small fake agent that uses the client's fs/terminal
 * methods or ignores session/cancel, and commands that crash or never answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_PATH } from '../helpers/cli.ts';
import { assertOneTerminalUpdate } from '../helpers/acp-properties.ts';
import { processesWith } from '../helpers/processes.ts';
import { driveHarness, harnessDirs, typesOf } from './helpers.ts';
import { toAcpUpdates, type AgentMessage, type SessionUpdate } from '../../src/index.ts';
import { liveGroupCount } from '../../src/process/run.ts';
import { INIT_TIMEOUT_MS } from '../../src/harness/acp.ts';
import { INTERRUPTED } from '../../src/messages/notices.ts';
import type { HarnessConfig } from '../../src/harness/types.ts';

/** A scratch folder pair and `agentpipe acp` on a script of `turns`. */
function scripted(
  prefix: string,
  turns: unknown[],
  extra: string[] = [],
): { home: string; cwd: string; command: string[] } {
  const { home, cwd } = harnessDirs(`acp-${prefix}`);
  const script = path.join(path.dirname(cwd), 'script.json');
  writeFileSync(script, JSON.stringify({ turns }));
  return {
    home,
    cwd,
    command: [process.execPath, CLI_PATH, 'acp', '--model', 'scripted', '--script', script, ...extra],
  };
}

async function drive(config: Partial<HarnessConfig> & { cwd: string; command: string[] }, home: string) {
  return driveHarness({ name: 'acp', ...config }, { AGENTPIPE_HOME: home });
}

const toolUses = (messages: AgentMessage[]) =>
  messages.flatMap((m) => (m.type === 'assistant' ? m.message.content.filter((b) => b.type === 'tool_use') : []));
const toolResults = (messages: AgentMessage[]) =>
  messages.flatMap((m) => {
    if (m.type !== 'user' || !Array.isArray(m.message.content)) return [];
    return m.message.content
      .filter((b) => b.type === 'tool_result')
      .map((b) => ({ block: b, result: m.tool_use_result }));
  });
const joined = (updates: SessionUpdate[], kind: string) =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => (u as { content: { text: string } }).content.text)
    .join('');

/** Every tool_call of the ACP projection of our stream has exactly one terminal update. */
function assertTerminalUpdates(messages: AgentMessage[]): SessionUpdate[] {
  const updates = toAcpUpdates(messages);
  assertOneTerminalUpdate(updates);
  return updates;
}

test('acp harness: a text answer round-trips (init first, thinking and text, deltas join to the text, ACP chunks equal)', async () => {
  const TEXT = 'The answer is forty-two, said in more than one streamed chunk.';
  const THINKING = 'Let me think about the question.';
  for (const partial of [false, true]) {
    const { home, cwd, command } = scripted(`text-${partial}`, [{ thinking: THINKING, text: TEXT }]);
    const h = await drive({ cwd, command, includePartialMessages: partial }, home);
    try {
      const { messages, outcome, warnings } = await h.prompt('What is the answer?');
      assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
      assert.equal(outcome.text, TEXT);
      assert.equal(outcome.stopReason, 'end_turn');
      assert.equal(outcome.numTurns, 1);
      const types = typesOf(messages).filter((t) => t !== 'stream_event');
      assert.deepEqual(types, ['system/init', 'assistant', 'assistant']);
      assert.equal(
        messages[0]!.type === 'system' && messages[0]!.subtype === 'init' && messages[0]!.harness_session_id,
        h.harness.nativeSessionId,
      );
      assert.ok(h.harness.nativeSessionId);
      const finals = messages.filter((m) => m.type === 'assistant');
      assert.deepEqual(
        finals.map((m) => m.message.content[0]!.type),
        ['thinking', 'text'],
      );
      assert.equal(
        new Set(finals.map((m) => m.message.id)).size,
        1,
        'one API message, one block per assistant message',
      );
      const events = messages.filter((m) => m.type === 'stream_event');
      if (partial) {
        const deltas = events.map((m) => m.event).filter((e) => e.type === 'content_block_delta');
        assert.equal(deltas.map((e) => (e.delta.type === 'text_delta' ? e.delta.text : '')).join(''), TEXT);
        assert.ok(deltas.length > 2, 'text came in several chunks');
        const start = events[0]!.event;
        assert.ok(
          start.type === 'message_start' && start.message.id === finals[0]!.message.id,
          'the stream and the finals share the message id',
        );
      } else {
        assert.equal(events.length, 0);
      }
      // Back through the ACP projection: the same text and thought, each once.
      const updates = toAcpUpdates(messages);
      assert.equal(joined(updates, 'agent_message_chunk'), TEXT);
      assert.equal(joined(updates, 'agent_thought_chunk'), THINKING);
      assert.deepEqual(warnings, []);
    } finally {
      await h.harness.close();
    }
  }
});

test('acp harness: the stop reasons max_tokens and refusal become failure outcomes that keep the reason', async () => {
  for (const reason of ['max_tokens', 'refusal'] as const) {
    const { home, cwd, command } = scripted(`stop-${reason}`, [{ text: 'Cut short', stop_reason: reason }]);
    const h = await drive({ cwd, command }, home);
    try {
      const { outcome, messages } = await h.prompt('Tell me everything.');
      assert.equal(outcome.subtype, 'error_during_execution', reason);
      assert.equal(outcome.stopReason, reason);
      assert.match(outcome.errors[0]!, new RegExp(reason));
      assert.deepEqual(typesOf(messages), ['system/init', 'assistant']);
    } finally {
      await h.harness.close();
    }
  }
});

test('acp harness: a Bash call round-trips as tool_use + tool_result; the inner permission request goes to askPermission (allow, deny)', async () => {
  const COMMAND = 'touch made.txt && echo made it';
  for (const allow of [true, false]) {
    const { home, cwd, command } = scripted(`bash-${allow}`, [
      { text: 'Running it.', tool_calls: [{ id: 'toolu_bash1', name: 'Bash', input: { command: COMMAND } }] },
      { text: allow ? 'It ran.' : 'It was rejected.' },
    ]);
    const h = await drive({ cwd, command }, home);
    const asked: Array<[string, Record<string, unknown>]> = [];
    try {
      const { messages, outcome } = await h.prompt('Make the file.', {
        askPermission: async (tool, input) => {
          asked.push([tool, input]);
          return allow ? { behavior: 'allow', updatedInput: input } : { behavior: 'deny', message: 'not today' };
        },
      });
      assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
      assert.equal(outcome.text, allow ? 'It ran.' : 'It was rejected.');
      assert.deepEqual(asked, [['Bash', { command: COMMAND }]]);
      assert.deepEqual(typesOf(messages), ['system/init', 'assistant', 'assistant', 'user', 'assistant']);
      assert.deepEqual(
        toolUses(messages).map((b) => [b.id, b.name, b.input]),
        [['toolu_bash1', 'Bash', { command: COMMAND }]],
      );
      const [result] = toolResults(messages);
      assert.equal(result!.block.tool_use_id, 'toolu_bash1');
      if (allow) {
        assert.equal(result!.block.is_error, undefined);
        assert.match(String(result!.block.content), /made it/);
        assert.ok(existsSync(path.join(cwd, 'made.txt')));
        assert.equal((result!.result as { stdout?: string }).stdout?.trim(), 'made it');
      } else {
        assert.equal(result!.block.is_error, true);
        assert.match(String(result!.block.content), /^<tool_use_error>.*<\/tool_use_error>$/s);
        assert.ok(!existsSync(path.join(cwd, 'made.txt')));
      }
      const updates = assertTerminalUpdates(messages);
      const terminal = updates.find((u) => u.sessionUpdate === 'tool_call_update');
      assert.equal(terminal?.sessionUpdate === 'tool_call_update' && terminal.status, allow ? 'completed' : 'failed');
    } finally {
      await h.harness.close();
    }
  }
});

test('acp harness: Write and Edit show their diffs (structuredPatch in tool_use_result) and change the file', async () => {
  const { home, cwd, command } = scripted('edit', [
    {
      tool_calls: [
        { id: 'toolu_write1', name: 'Write', input: { file_path: 'notes.txt', content: 'one\ntwo\nthree\n' } },
      ],
    },
    {
      tool_calls: [
        { id: 'toolu_edit1', name: 'Edit', input: { file_path: 'notes.txt', old_string: 'two', new_string: 'TWO' } },
      ],
    },
    { text: 'Edited.' },
  ]);
  const h = await drive({ cwd, command }, home);
  try {
    const { messages, outcome } = await h.prompt('Write and edit the notes.', {
      askPermission: async () => ({ behavior: 'allow' }),
    });
    assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
    assert.equal(readFileSync(path.join(cwd, 'notes.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.deepEqual(
      toolUses(messages).map((b) => [b.name, b.input]),
      [
        ['Write', { file_path: 'notes.txt', content: 'one\ntwo\nthree\n' }],
        ['Edit', { file_path: 'notes.txt', old_string: 'two', new_string: 'TWO' }],
      ],
    );
    const [write, edit] = toolResults(messages).map((r) => r.result as Record<string, any>);
    assert.equal(write!.type, 'create');
    assert.equal(write!.content, 'one\ntwo\nthree\n');
    assert.equal(edit!.filePath, path.join(cwd, 'notes.txt'));
    assert.equal(edit!.originalFile, 'one\ntwo\nthree\n');
    assert.deepEqual(edit!.structuredPatch[0].lines, [' one', '-two', '+TWO', ' three']);
    // Back through ACP: the edit's card shows the whole-file diff.
    const updates = assertTerminalUpdates(messages);
    const done = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'toolu_edit1');
    const diff = done?.sessionUpdate === 'tool_call_update' ? done.content?.find((c) => c.type === 'diff') : undefined;
    assert.deepEqual(diff && { oldText: diff.oldText, newText: diff.newText }, {
      oldText: 'one\ntwo\nthree\n',
      newText: 'one\nTWO\nthree\n',
    });
  } finally {
    await h.harness.close();
  }
});

test('acp harness: an interrupt mid-tool cancels the prompt (interrupted outcome), kills the tool, and the agent goes on', async () => {
  const MARKER = 'sleep 31.7';
  const { home, cwd, command } = scripted('interrupt', [
    {
      text: 'Sleeping.',
      tool_calls: [{ id: 'toolu_sleep', name: 'Bash', input: { command: `${MARKER}; echo woke` } }],
    },
    { text: 'Still here.' },
  ]);
  const h = await drive({ cwd, command }, home);
  try {
    const started = Date.now();
    const { messages, outcome } = await h.prompt('Sleep a while.', {
      askPermission: async () => ({ behavior: 'allow' }),
      onMessage: (m, controller) => {
        if (m.type === 'assistant' && m.message.content.some((b) => b.type === 'tool_use'))
          setTimeout(() => controller.abort(), 500);
      },
    });
    assert.equal(outcome.terminalReason, 'aborted_streaming');
    assert.deepEqual(outcome.errors, [INTERRUPTED]);
    assert.ok(Date.now() - started < 10_000, 'ended well before the sleep');
    const last = messages.at(-1)!;
    assert.ok(last.type === 'user' && JSON.stringify(last.message.content).includes(INTERRUPTED));
    assertTerminalUpdates(messages);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(processesWith(MARKER), [], 'the sleep was stopped');
    // The same agent answers the next prompt.
    const next = await h.prompt('Are you there?');
    assert.equal(next.outcome.subtype, 'success', next.outcome.errors.join('\n'));
    assert.equal(next.outcome.text, 'Still here.');
  } finally {
    await h.harness.close();
  }
  assert.equal(liveGroupCount(), 0, 'no process group left');
});

test('acp harness: a crashing agent, a non-ACP command and a hanging agent each end in one failure outcome, never a throw', async () => {
  const { home, cwd } = harnessDirs('acp-broken');
  const cases: Array<{ label: string; script: string; error: RegExp; withinMs: number }> = [
    {
      label: 'crash',
      script: 'console.error("boom: bad config"); process.exit(3)',
      error: /exited with code 3.*boom: bad config/s,
      withinMs: 5000,
    },
    {
      label: 'garbage',
      script: 'console.log("Usage: some-agent [options]"); setInterval(() => {}, 1000)',
      error: /not an ACP agent.*Usage: some-agent/,
      withinMs: 5000,
    },
    {
      label: 'hang',
      script: 'process.stdin.resume(); setInterval(() => {}, 1000)',
      error: new RegExp(`did not answer initialize within ${INIT_TIMEOUT_MS / 1000} s`),
      withinMs: INIT_TIMEOUT_MS + 3000,
    },
  ];
  for (const c of cases) {
    const h = await drive({ cwd, command: [process.execPath, '-e', c.script] }, home);
    const started = Date.now();
    const { outcome, messages } = await h.prompt('Hello?');
    assert.equal(outcome.subtype, 'error_during_execution', c.label);
    assert.equal(outcome.errors.length, 1, c.label);
    assert.match(outcome.errors[0]!, c.error, c.label);
    assert.ok(Date.now() - started < c.withinMs, `${c.label} failed in time`);
    assert.ok(!messages.some((m) => m.type === 'assistant'), c.label);
    await h.harness.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(liveGroupCount(), 0, 'every agent was stopped');
});

/** A small ACP agent (the ACP SDK's own agent side) that uses the client's fs and terminal methods. */
const FAKE_AGENT = `
import { Readable, Writable } from 'node:stream';
import * as acp from ${JSON.stringify(import.meta.resolve('@agentclientprotocol/sdk'))};
const mode = process.argv[2];
let client;
let cwd;
const app = acp.agent({ name: 'fake' })
  .onConnect((c) => { client = c.client; })
  .onRequest('initialize', () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
  .onRequest('session/new', ({ params }) => { cwd = params.cwd; return { sessionId: 'fake-session' }; })
  .onRequest('session/prompt', async ({ params }) => {
    const sessionId = params.sessionId;
    const update = (u) => client.notify('session/update', { sessionId, update: u });
    const say = (text) => update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
    const attempt = async (label, work) => {
      try { await work(); await say(label + ' allowed;'); }
      catch (e) { await say(label + ' refused (' + e.message + ');'); }
    };
    if (mode === 'crash') {
      await say('Half an answer');
      setTimeout(() => { console.error('fatal: out of cheese'); process.exit(5); }, 50);
      return new Promise(() => {});
    }
    if (mode === 'ignore-cancel') {
      await update({
        sessionUpdate: 'tool_call', toolCallId: 'call_stuck', title: 'Stuck', kind: 'execute', status: 'in_progress',
        rawInput: { command: 'sleep 1000' },
      });
      return new Promise(() => {});
    }
    const notes = await client.request('fs/read_text_file', { sessionId, path: cwd + '/notes.txt', line: 2, limit: 1 });
    await say('line 2: ' + notes.content + ';');
    await attempt('read outside', () =>
      client.request('fs/read_text_file', { sessionId, path: cwd + '/../secret.txt' }));
    await attempt('write through link', () =>
      client.request('fs/write_text_file', { sessionId, path: cwd + '/link/escape.txt', content: 'x' }));
    await attempt('write a hook', () =>
      client.request('fs/write_text_file', { sessionId, path: cwd + '/.git/hooks/pre-commit', content: 'touch x' }));
    await attempt('read a denied file', () =>
      client.request('fs/read_text_file', { sessionId, path: cwd + '/.env' }));
    await attempt('write settings', () =>
      client.request('fs/write_text_file', { sessionId, path: cwd + '/.agentpipe/settings.json', content: '{}' }));
    await client.request('fs/write_text_file', {
      sessionId, path: cwd + '/sub/out.txt', content: 'written by the agent',
    });
    await update({
      sessionUpdate: 'plan', entries: [{ content: 'Run echo', status: 'in_progress', priority: 'high' }],
    });
    await update({
      sessionUpdate: 'tool_call', toolCallId: 'call_term', title: 'Run echo', kind: 'execute', status: 'pending',
      rawInput: {},
    });
    await update({
      sessionUpdate: 'tool_call_update', toolCallId: 'call_term',
      rawInput: { command: 'echo from-terminal; echo err >&2' },
    });
    const answer = await client.request('session/request_permission', {
      sessionId, toolCall: { toolCallId: 'call_term' }, options: [
        { optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
    });
    if (answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'yes') {
      const { terminalId } = await client.request('terminal/create', {
        sessionId, command: 'echo from-terminal; echo err >&2',
      });
      const exit = await client.request('terminal/wait_for_exit', { sessionId, terminalId });
      await update({
        sessionUpdate: 'tool_call_update', toolCallId: 'call_term', status: 'completed',
        content: [{ type: 'terminal', terminalId }],
      });
      const out = await client.request('terminal/output', { sessionId, terminalId });
      await client.request('terminal/release', { sessionId, terminalId });
      await say('exit ' + exit.exitCode + ', output ' + JSON.stringify(out.output) + '.');
    } else {
      const rejected = [{ type: 'content', content: { type: 'text', text: 'rejected' } }];
      await update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_term', status: 'failed', content: rejected });
      await say('not run.');
    }
    return { stopReason: 'end_turn' };
  });
app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
`;

function fakeAgent(prefix: string, mode = 'tools'): { home: string; cwd: string; command: string[] } {
  const { home, cwd } = harnessDirs(`acp-${prefix}`);
  const file = path.join(path.dirname(cwd), 'fake-agent.mjs');
  writeFileSync(file, FAKE_AGENT);
  return { home, cwd, command: [process.execPath, file, mode] };
}

test('acp harness: fs/* is served inside the cwd only (symbolic links followed), terminal/* runs commands, plans become TodoWrite', async () => {
  for (const allow of [true, false]) {
    const { home, cwd, command } = fakeAgent(`fs-${allow}`);
    writeFileSync(path.join(cwd, 'notes.txt'), 'first\nsecond\nthird\n');
    writeFileSync(path.join(path.dirname(cwd), 'secret.txt'), 'secret');
    symlinkSync(home, path.join(cwd, 'link'));
    writeFileSync(path.join(cwd, '.env'), 'SECRET=hunter2\n');
    const h = await drive({ cwd, command, disallowedTools: ['Read(./.env)'] }, home);
    try {
      const askPermission = async () =>
        allow ? { behavior: 'allow' as const } : { behavior: 'deny' as const, message: 'no' };
      const { messages, outcome } = await h.prompt('Use the tools.', { askPermission });
      assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
      const said = messages
        .flatMap((m) =>
          m.type === 'assistant' ? m.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : [],
        )
        .join('');
      assert.match(said, /^line 2: second;read outside refused \(.*outside the working folder.*\);/);
      assert.match(said, /;write through link refused \(.*outside the working folder.*\);/);
      assert.match(said, /;write a hook refused \(.*not written: it is inside \.git\/.*\);/);
      assert.match(said, /;read a denied file refused \(.*not read: denied by Read\(\.\/\.env\)\);/);
      assert.match(said, /;write settings refused \(.*not written: it is inside \.agentpipe\/.*\);/);
      assert.ok(
        !existsSync(path.join(cwd, '.git/hooks/pre-commit')) &&
          !existsSync(path.join(cwd, '.agentpipe', 'settings.json')),
      );
      assert.equal(readFileSync(path.join(cwd, 'sub/out.txt'), 'utf8'), 'written by the agent');
      assert.ok(!existsSync(path.join(home, 'escape.txt')));
      assert.deepEqual(
        toolUses(messages).map((b) => [b.name, b.input]),
        [
          [
            'TodoWrite',
            { todos: [{ content: 'Run echo', status: 'in_progress', activeForm: 'Run echo', priority: 'high' }] },
          ],
          ['Bash', { command: 'echo from-terminal; echo err >&2' }],
        ],
      );
      const [, bash] = toolResults(messages);
      if (allow) {
        assert.match(said, /exit 0, output "from-terminal\\nerr\\n"\.$/);
        assert.equal(bash!.block.content, 'from-terminal\nerr\n');
      } else {
        assert.match(said, /not run\.$/);
        assert.equal(bash!.block.is_error, true);
      }
      const updates = assertTerminalUpdates(messages);
      const plans = updates
        .filter((u) => u.sessionUpdate === 'plan')
        .map((u) => u.sessionUpdate === 'plan' && u.entries);
      assert.deepEqual(plans, [[{ content: 'Run echo', status: 'in_progress', priority: 'high' }]]);
    } finally {
      await h.harness.close();
    }
  }
});

test('acp harness: an agent that dies mid-prompt ends it with one failure (its text kept, its stderr in the error); the next prompt restarts it', async () => {
  const { home, cwd, command } = fakeAgent('dies', 'crash');
  const h = await drive({ cwd, command }, home);
  try {
    const { outcome, messages } = await h.prompt('Go.');
    assert.equal(outcome.subtype, 'error_during_execution');
    assert.equal(outcome.errors.length, 1);
    assert.match(outcome.errors[0]!, /exited with code 5.*fatal: out of cheese/s);
    assert.deepEqual(typesOf(messages), ['system/init', 'assistant']);
    const again = await h.prompt('Again.');
    assert.match(again.outcome.errors[0]!, /exited with code 5/);
    assert.ok(
      again.warnings.some((w) => /cannot load sessions/.test(w)),
      'a new session starts',
    );
  } finally {
    await h.harness.close();
  }
  const missing = await drive({ cwd, command: [path.join(cwd, 'no-such-agent')] }, home);
  const { outcome } = await missing.prompt('Hello?');
  assert.match(outcome.errors[0]!, /could not be started.*ENOENT/);
  await missing.harness.close();
});

test('acp harness: an agent that ignores session/cancel is stopped after the grace period; the next prompt starts it again', async () => {
  const { home, cwd, command } = fakeAgent('stuck', 'ignore-cancel');
  const h = await drive({ cwd, command }, home);
  try {
    const started = Date.now();
    const { outcome, messages, warnings } = await h.prompt('Go.', {
      onMessage: (m, controller) => {
        if (m.type === 'assistant') setTimeout(() => controller.abort(), 100);
      },
    });
    assert.equal(outcome.terminalReason, 'aborted_streaming');
    assert.ok(Date.now() - started < 6000);
    assert.ok(
      warnings.some((w) => /did not end the prompt within 2 s/.test(w)),
      warnings.join('\n'),
    );
    assert.deepEqual(
      toolUses(messages).map((b) => b.name),
      ['Bash'],
    );
    const again = await h.prompt('Again.', {
      onMessage: (m, controller) => m.type === 'assistant' && controller.abort(),
    });
    assert.equal(again.outcome.terminalReason, 'aborted_streaming');
  } finally {
    await h.harness.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(liveGroupCount(), 0);
});
