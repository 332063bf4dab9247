/**
 * What only the Qwen Code harness does, with the real `qwen` CLI (test/harness/clis) against a local fake of an
 * OpenAI-compatible chat completions server: writes and edits shown as Write and Edit, and the CLI's own words on a
 * file it created. What every harness does is in conformance/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  OPENAI_DONE,
  openaiChunk,
  openaiUsage,
  startFakeServer,
  type RecordedRequest,
  type Reply,
} from '../model/fake-servers.ts';
import { driveHarness, harnessDirs } from './helpers.ts';
import { toAcpUpdates } from '../../src/index.ts';
import type { AgentMessage } from '../../src/messages/types.ts';

const text = (...pieces: string[]): Reply => ({
  kind: 'sse',
  frames: [
    openaiChunk({ role: 'assistant', content: pieces[0] }),
    ...pieces.slice(1).map((p) => openaiChunk({ content: p })),
    openaiChunk({}, 'stop'),
    openaiUsage(20, 5),
    OPENAI_DONE,
  ],
});
const shell = (command: string): Reply => ({
  kind: 'sse',
  frames: [
    openaiChunk({
      role: 'assistant',
      tool_calls: [
        {
          index: 0,
          id: 'call_sh',
          type: 'function',
          function: { name: 'run_shell_command', arguments: JSON.stringify({ command }) },
        },
      ],
    }),
    openaiChunk({}, 'tool_calls'),
    openaiUsage(20, 5),
    OPENAI_DONE,
  ],
});

/** A fake chat completions server; Qwen Code's side requests (its memory subagent) get a plain answer. */
async function fakeApi(
  route: (messages: Array<{ role: string; content: unknown }>, request: RecordedRequest) => Reply,
) {
  return startFakeServer((request) => {
    if (request.method !== 'POST' || !request.path.includes('/chat/completions'))
      return { kind: 'json', status: 200, body: {} };
    const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
    if (JSON.stringify(messages[0]?.content ?? '').includes('memory extraction')) return text('nothing to remember');
    return route(messages, request);
  });
}

function offlineEnv(url: string, home: string): Record<string, string> {
  return { HOME: home, OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'qwen-test' };
}

test('qwen: a write and an edit (acceptEdits → auto-edit) show as Write and Edit with the diffs the faces show', async () => {
  const { home, cwd } = harnessDirs('qwen-edit');
  writeFileSync(path.join(cwd, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  const call = (id: string, name: string, args: unknown): Reply => ({
    kind: 'sse',
    frames: [
      openaiChunk({
        role: 'assistant',
        tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
      }),
      openaiChunk({}, 'tool_calls'),
      openaiUsage(20, 5),
      OPENAI_DONE,
    ],
  });
  const api = await fakeApi((messages) => {
    const done = messages.filter((m) => m.role === 'tool').length;
    if (done === 0) return call('call_w', 'write_file', { file_path: path.join(cwd, 'new.txt'), content: 'fresh\n' });
    // Qwen Code, as Claude Code, edits only a file it has read.
    if (done === 1) return call('call_r', 'read_file', { file_path: path.join(cwd, 'notes.txt') });
    if (done === 2)
      return call('call_e', 'edit', { file_path: path.join(cwd, 'notes.txt'), old_string: 'beta', new_string: 'BETA' });
    return text('both done');
  });
  const h = await driveHarness({ name: 'qwen', cwd, permissionMode: 'acceptEdits' }, offlineEnv(api.url, home));
  try {
    const run = await h.prompt('change the files');
    assert.equal(run.outcome.subtype, 'success', run.outcome.errors.join('\n'));
    assert.equal(readFileSync(path.join(cwd, 'notes.txt'), 'utf8'), 'alpha\nBETA\ngamma\n');
    const results = run.messages
      .filter((m): m is Extract<AgentMessage, { type: 'user' }> => m.type === 'user')
      .map((m) => m.tool_use_result as Record<string, unknown> | undefined);
    assert.equal(results[0]?.type, 'create');
    assert.equal(results[0]?.content, 'fresh\n');
    assert.equal(results[2]?.originalFile, 'alpha\nbeta\ngamma\n');
    assert.deepEqual(results[2]?.structuredPatch, [
      { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' alpha', '-beta', '+BETA', ' gamma'] },
    ]);
    const diffs = toAcpUpdates(run.messages).flatMap((u) =>
      u.sessionUpdate === 'tool_call_update' && u.status === 'completed'
        ? (u.content ?? []).filter((c) => c.type === 'diff')
        : [],
    );
    assert.deepEqual(
      diffs.map((d) => [path.basename(d.path), d.oldText, d.newText]),
      [
        ['new.txt', null, 'fresh\n'],
        ['notes.txt', 'alpha\nbeta\ngamma\n', 'alpha\nBETA\ngamma\n'],
      ],
    );
  } finally {
    await h.harness.close();
    await api.close();
  }
});

test("qwen: a file written before agentpipe could read it still shows as created (the CLI's own words decide)", async () => {
  const { cwd } = harnessDirs('qwen-race');
  const file = path.join(cwd, 'raced.txt');
  const script = path.join(cwd, 'fake-qwen.mjs');
  const line = (value: unknown) => `console.log(${JSON.stringify(JSON.stringify(value))});`;
  const use = { type: 'tool_use', id: 'call_w', name: 'write_file', input: { file_path: file, content: 'raced\n' } };
  const result = {
    type: 'tool_result',
    tool_use_id: 'call_w',
    is_error: false,
    content: `Successfully created and wrote to new file: ${file}.`,
  };
  writeFileSync(
    script,
    [
      'import { writeFileSync } from "node:fs";',
      'process.stdin.on("data", (chunk) => {',
      '  if (!String(chunk).includes(\'"type":"user"\')) return;',
      `  writeFileSync(${JSON.stringify(file)}, "raced\\n");`,
      `  ${line({ type: 'system', subtype: 'init', session_id: 'q1', model: 'q', tools: [] })}`,
      '  ' +
        line({
          type: 'assistant',
          session_id: 'q1',
          parent_tool_use_id: null,
          message: { id: 'm1', type: 'message', role: 'assistant', model: 'q', content: [use] },
        }),
      '  ' +
        line({
          type: 'user',
          session_id: 'q1',
          parent_tool_use_id: null,
          message: { role: 'user', content: [result] },
        }),
      '  ' +
        line({
          type: 'result',
          subtype: 'success',
          session_id: 'q1',
          is_error: false,
          num_turns: 2,
          result: 'ok',
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      '});',
    ].join('\n'),
  );
  const h = await driveHarness({ name: 'qwen', cwd, command: [process.execPath, script] });
  try {
    const run = await h.prompt('write it');
    assert.equal(run.outcome.subtype, 'success', run.outcome.errors.join('\n'));
    const written = run.messages.find((m): m is Extract<AgentMessage, { type: 'user' }> => m.type === 'user');
    assert.deepEqual(written?.tool_use_result, {
      type: 'create',
      filePath: file,
      content: 'raced\n',
      structuredPatch: [],
      originalFile: null,
      userModified: false,
    });
  } finally {
    await h.harness.close();
  }
});
