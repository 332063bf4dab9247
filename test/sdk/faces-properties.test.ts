/** Properties every face keeps: one terminal update per tool call, deltas join to finals, one end per prompt. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SessionEventProjector,
  isEventOf,
  toAcpUpdates,
  query,
  type AgentMessage,
  type SessionUpdate,
} from '../../src/index.ts';
import { runScripted } from './collect.ts';
import { assertOneTerminalUpdate } from '../helpers/acp-properties.ts';
import { scriptedOptions } from './scripted-session.ts';

/** A session whose second tool is still running when it is interrupted. */
async function interruptedMessages(): Promise<AgentMessage[]> {
  const options = scriptedOptions({
    script: {
      turns: [
        {
          tool_calls: [
            { id: 'toolu_a', name: 'Bash', input: { command: 'echo a' } },
            { id: 'toolu_b', name: 'Bash', input: { command: 'echo b && sleep 5' } },
            { id: 'toolu_c', name: 'Read', input: { file_path: 'notes.txt' } },
          ],
        },
      ],
    },
    allowedTools: ['Bash', 'Read'],
  });
  const q = query({ prompt: 'go', options });
  const messages: AgentMessage[] = [];
  for await (const message of q) {
    messages.push(message);
    if (message.type === 'user' && JSON.stringify(message.message.content).includes('toolu_a'))
      setTimeout(() => void q.interrupt(), 200);
  }
  return messages;
}

test('property: every tool_call has exactly one terminal update (ACP), also when interrupted', async () => {
  for (const partial of [false, true])
    assertOneTerminalUpdate(toAcpUpdates((await runScripted({ includePartialMessages: partial })).messages));
  const interrupted = toAcpUpdates(await interruptedMessages());
  assertOneTerminalUpdate(interrupted);
  assert.deepEqual(
    interrupted
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed')
      .map((u) => (u as { toolCallId: string }).toolCallId),
    ['toolu_b', 'toolu_c'],
  );
});

test('property: every tool.execution_start has exactly one tool.execution_complete (session events)', async () => {
  for (const messages of [
    (await runScripted({ includePartialMessages: true })).messages,
    await interruptedMessages(),
  ]) {
    const events = new SessionEventProjector();
    const all = messages.flatMap((m) => events.push(m));
    const started = all.filter((e) => e.type === 'tool.execution_start').map((e) => e.data.toolCallId);
    for (const id of started)
      assert.equal(
        all.filter((e) => e.type === 'tool.execution_complete' && e.data.toolCallId === id).length,
        1,
        String(id),
      );
  }
});

test('property: every delta sequence joins to its final message (stream, ACP, session events)', async () => {
  const { messages } = await runScripted({ includePartialMessages: true });
  // The raw stream: text deltas of each API message join to its final text blocks.
  const deltas = new Map<string, string>();
  const finals = new Map<string, string>();
  let current = '';
  for (const m of messages) {
    if (m.type === 'stream_event' && m.event.type === 'message_start') current = m.event.message.id;
    if (m.type === 'stream_event' && m.event.type === 'content_block_delta' && m.event.delta.type === 'text_delta')
      deltas.set(current, (deltas.get(current) ?? '') + m.event.delta.text);
    if (m.type === 'assistant' && !m.error)
      for (const b of m.message.content)
        if (b.type === 'text') finals.set(m.message.id, (finals.get(m.message.id) ?? '') + b.text);
  }
  assert.ok(deltas.size >= 4);
  assert.deepEqual(deltas, finals);
  // ACP: the chunks with deltas equal the chunks without (nothing is emitted twice).
  const joined = (updates: SessionUpdate[], kind: string) =>
    updates
      .filter((u) => u.sessionUpdate === kind)
      .map((u) => (u as { content: { text: string } }).content.text)
      .join('');
  const streamed = toAcpUpdates(messages);
  const plain = toAcpUpdates((await runScripted()).messages);
  for (const kind of ['agent_message_chunk', 'agent_thought_chunk'])
    assert.equal(joined(streamed, kind), joined(plain, kind));
  assert.equal(
    joined(plain, 'agent_message_chunk'),
    'I will make a plan.Now editing the notes.All done: notes updated.API Error: 400 bad request from the ' +
      'scripted model',
  );
  // Session events: message_delta per messageId joins to assistant.message content.
  const events = new SessionEventProjector();
  const all = messages.flatMap((m) => events.push(m));
  for (const message of all.filter((e) => isEventOf(e, 'assistant.message'))) {
    const text = all
      .filter((e) => isEventOf(e, 'assistant.message_delta'))
      .filter((e) => e.data.messageId === message.data.messageId)
      .map((e) => e.data.deltaContent)
      .join('');
    if (text) assert.equal(text, message.data.content);
  }
  for (const reasoning of all.filter((e) => isEventOf(e, 'assistant.reasoning'))) {
    const text = all
      .filter((e) => isEventOf(e, 'assistant.reasoning_delta'))
      .filter((e) => e.data.reasoningId === reasoning.data.reasoningId)
      .map((e) => e.data.deltaContent)
      .join('');
    assert.equal(text, reasoning.data.content);
  }
});

test('property: every face ends exactly once per prompt (result, session.idle); parentId chains persisted events', async () => {
  const { messages } = await runScripted({ includePartialMessages: true });
  assert.equal(messages.filter((m) => m.type === 'result').length, 2);
  assert.equal(messages.at(-1)!.type, 'result');
  const events = new SessionEventProjector();
  const all = messages.flatMap((m) => events.push(m));
  assert.equal(all.filter((e) => e.type === 'session.idle').length, 2);
  assert.equal(all.at(-1)!.type, 'session.idle');
  let last: string | null = null;
  for (const event of all) {
    assert.equal(event.parentId, last);
    assert.equal(
      event.ephemeral,
      [
        'assistant.message_delta',
        'assistant.reasoning_delta',
        'tool.execution_start',
        'tool.execution_progress',
        'tool.execution_partial_result',
        'session.idle',
        'session.usage_info',
        'assistant.usage',
      ].includes(event.type),
    );
    if (!event.ephemeral) last = event.id;
  }
  const sub = all.filter((e) => 'parentToolCallId' in e.data && e.data.parentToolCallId === 'toolu_task1');
  assert.ok(sub.some((e) => e.type === 'assistant.message') && sub.some((e) => e.type === 'tool.execution_complete'));
  assert.deepEqual(
    all
      .filter((e) => e.type.startsWith('subagent.'))
      .map((e) => [e.type, 'toolCallId' in e.data ? e.data.toolCallId : undefined]),
    [
      ['subagent.started', 'toolu_task1'],
      ['subagent.completed', 'toolu_task1'],
    ],
  );
});
