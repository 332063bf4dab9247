/** query(): in-process and child-process engines yield the same messages; control methods work in both. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  getMessageContentBlocks,
  getPermissionDenials,
  getSystemInitData,
  isResultMessage,
  query,
  type AgentMessage,
} from '../../src/index.ts';
import { CLI_PATH } from '../helpers/cli.ts';
import { keyFields, normalize, runScripted } from './collect.ts';
import { scriptedOptions } from './scripted-session.ts';

for (const partial of [false, true]) {
  test(`query(): in-process and executable yield identical message sequences (partial messages: ${partial})`, async () => {
    const local = await runScripted({ includePartialMessages: partial });
    const child = await runScripted({ includePartialMessages: partial, executable: CLI_PATH });
    const a = local.messages.map((m) => normalize(keyFields(m), local.cwd));
    const b = child.messages.map((m) => normalize(keyFields(m), child.cwd));
    assert.ok(a.length > 25);
    assert.deepEqual(b, a);
    assert.equal(local.messages.filter(isResultMessage).length, 2);
  });
}

test('query(): helpers read init data, content blocks and permission denials', async () => {
  const { messages } = await runScripted();
  const init = getSystemInitData(messages[0]);
  assert.equal(init.subtype, 'init');
  assert.equal(init.model, 'scripted');
  assert.ok(init.tools?.includes('Task'));
  const toolNames = messages
    .flatMap((m) => (m.type === 'assistant' ? (getMessageContentBlocks(m) ?? []) : []))
    .filter((b) => b.type === 'tool_use')
    .map((b) => (b as { name: string }).name);
  assert.deepEqual(toolNames, ['TodoWrite', 'Read', 'Glob', 'Edit', 'Write', 'Read', 'Bash', 'Task', 'Read']);
  const first = messages.find(isResultMessage)!;
  assert.deepEqual(
    getPermissionDenials(first).map((d) => d.tool_name),
    ['Write'],
  );
  assert.deepEqual(getPermissionDenials(messages[1]), []);
});

async function controlRoundTrip(executable?: string) {
  const options = scriptedOptions({
    script: { turns: [{ text: 'slow answer', delay_ms: 40, chunk_size: 1 }] },
    executable,
    includePartialMessages: true,
  });
  const q = query({ prompt: 'go', options });
  const seen: AgentMessage[] = [];
  let controlled = false;
  for await (const message of q) {
    seen.push(message);
    if (message.type === 'stream_event' && !controlled) {
      controlled = true;
      const models = await q.supportedModels();
      assert.ok(models.some((m) => m.value === 'scripted'));
      assert.deepEqual(await q.mcpServerStatus(), []);
      await q.setPermissionMode('acceptEdits');
      await q.setModel('scripted');
      await assert.rejects(q.setPermissionMode('nonsense' as never), /unknown permission mode/);
      await q.interrupt();
    }
  }
  return seen;
}

for (const mode of ['in-process', 'executable']) {
  test(`query(): control methods and interrupt work (${mode})`, async () => {
    const seen = await controlRoundTrip(mode === 'executable' ? CLI_PATH : undefined);
    const result = seen.at(-1)!;
    assert.ok(isResultMessage(result));
    assert.equal(result.subtype, 'error_during_execution');
    assert.equal(result.terminal_reason, 'aborted_streaming');
    assert.equal(seen.filter(isResultMessage).length, 1);
  });
}

test('query(): abortController ends the stream with its result; bad prompts fail clearly', async () => {
  const abortController = new AbortController();
  const options = scriptedOptions({
    script: { turns: [{ text: 'x'.repeat(200), delay_ms: 20, chunk_size: 1 }] },
    abortController,
  });
  const messages: AgentMessage[] = [];
  setTimeout(() => abortController.abort(), 150);
  for await (const message of query({ prompt: 'go', options })) messages.push(message);
  assert.equal(messages.at(-1)!.type, 'result');
  assert.equal((messages.at(-1) as { terminal_reason?: string }).terminal_reason, 'aborted_streaming');
  assert.throws(() => query({ prompt: 42 as never }), /prompt must be a string or an AsyncIterable/);
});

test('query(): options that cannot cross a process are refused clearly with executable', async () => {
  const q = query({ prompt: 'x', options: { executable: CLI_PATH, extraTools: [] } });
  await assert.rejects(q.next(), /extraTools.*in-process only/);
});
