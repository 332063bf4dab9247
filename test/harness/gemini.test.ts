/** The Gemini CLI harness with the real `gemini` CLI against a local Gemini API fake (offline, throwaway HOME). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { toAcpUpdates, type AgentMessage } from '../../src/index.ts';
import { liveGroupCount } from '../../src/process/run.ts';
import type { HarnessConfig } from '../../src/harness/types.ts';
import { INTERRUPTED, INTERRUPTED_TOOLS } from '../../src/messages/notices.ts';
import { geminiApprovalMode, geminiToolRule, mapGeminiTool } from '../../src/harness/gemini.ts';
import { reverseEdit } from '../../src/tools/file-patch.ts';
import { scratchDir } from '../helpers/temp.ts';
import { assertOneTerminalUpdate } from '../helpers/acp-properties.ts';
import { processesWith } from '../helpers/processes.ts';
import { driveHarness, harnessDirs, noticesOf, typesOf, type DrivenHarness } from './helpers.ts';
import { FAKE_USAGE, startFakeGemini, type FakeGemini, type GeminiReply } from './fakes/gemini-api.ts';

const MODEL = 'gemini-2.5-flash';

/**
 * A harness on the fake in a fresh HOME: API-key auth, one attempt per request (no retries), its temp files in the
 * scratch folder.
 */
async function geminiOn(
  script: GeminiReply[],
  config: Partial<HarnessConfig> = {},
  dirs = harnessDirs('gemini'),
): Promise<{
  fake: FakeGemini;
  driven: DrivenHarness;
  cwd: string;
  home: string;
  done: () => Promise<void>;
}> {
  const fake = await startFakeGemini(script);
  const { home, cwd } = dirs;
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  mkdirSync(path.join(home, 'tmp'), { recursive: true });
  const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { maxAttempts: 1 } };
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  const driven = await driveHarness(
    { name: 'gemini', cwd, baseUrl: fake.url, model: MODEL, ...config },
    { HOME: home, TMPDIR: path.join(home, 'tmp'), GEMINI_API_KEY: 'fake-key', GEMINI_CLI_TRUST_WORKSPACE: 'true' },
  );
  return {
    fake,
    driven,
    cwd,
    home,
    done: async () => {
      await driven.harness.close();
      await fake.close();
    },
  };
}

/** Warnings other than Gemini's own startup notices. */
const ownWarnings = (warnings: string[]): string[] =>
  warnings.filter((w) => w.startsWith('harness gemini: ignored') || w.includes('unknown'));

const toolUses = (messages: AgentMessage[]) =>
  messages.flatMap((m) => (m.type === 'assistant' ? m.message.content.filter((b) => b.type === 'tool_use') : []));
const toolResults = (messages: AgentMessage[]) =>
  messages.flatMap((m) =>
    m.type === 'user' && Array.isArray(m.message.content)
      ? m.message.content.filter((b) => b.type === 'tool_result').map((block) => ({ block, result: m.tool_use_result }))
      : [],
  );
const texts = (messages: AgentMessage[]) =>
  messages.flatMap((m) =>
    m.type === 'assistant' ? m.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : [],
  );

test('gemini: mappings of permission modes and allowed-tools rules', () => {
  const modes = (['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk'] as const).map(geminiApprovalMode);
  assert.deepEqual(modes, ['default', 'auto_edit', 'yolo', 'plan', 'default']);
  const rules = ['Bash(git diff:*)', 'Edit', 'Read', 'mcp__x__y', 'Write(*)'].map(geminiToolRule);
  assert.deepEqual(rules, ['run_shell_command(git diff)', 'replace', 'read_file', 'mcp__x__y', 'write_file']);
  assert.deepEqual(mapGeminiTool('read_file', { file_path: 'a.ts', offset: 3 }, '/w'), {
    name: 'Read',
    input: { file_path: '/w/a.ts', offset: 3 },
  });
  assert.deepEqual(mapGeminiTool('grep_search', { pattern: 'x', dir_path: 'src', include: '*.ts' }, '/w'), {
    name: 'Grep',
    input: { pattern: 'x', path: 'src', glob: '*.ts' },
  });
  assert.deepEqual(mapGeminiTool('glob', { pattern: '**/*.md' }, '/w'), {
    name: 'Glob',
    input: { pattern: '**/*.md' },
  });
  const prompt = 'summarize https://example.com/a please';
  assert.deepEqual(mapGeminiTool('web_fetch', { prompt }, '/w'), {
    name: 'WebFetch',
    input: { url: 'https://example.com/a', prompt },
  });
  const edit = mapGeminiTool(
    'replace',
    { file_path: '/abs/f', old_string: 'a', new_string: 'b', allow_multiple: true },
    '/w',
  );
  assert.deepEqual(edit.input, { file_path: '/abs/f', old_string: 'a', new_string: 'b', replace_all: true });
  assert.deepEqual(mapGeminiTool('save_memory', { fact: 'x' }, '/w'), { name: 'save_memory', input: { fact: 'x' } });
  assert.equal(reverseEdit('one TWO three', 'two', 'TWO'), 'one two three');
  assert.equal(reverseEdit('TWO TWO', 'two', 'TWO'), undefined, 'ambiguous');
});

test('gemini: a text answer streamed in deltas, joined to one final message; usage; system prompt file', async () => {
  const { fake, driven, done } = await geminiOn(
    [{ kind: 'text', chunks: ['Hello ', 'from ', 'the fake ', 'Gemini'], delayMs: 5 }],
    {
      includePartialMessages: true,
      systemPrompt: 'You are the agentpipe test agent.',
      appendSystemPrompt: 'Answer briefly.',
      maxTurns: 3,
    },
  );
  try {
    const { messages, outcome, usage, warnings } = await driven.prompt('say hi');
    assert.deepEqual(typesOf(messages), [
      'system/init',
      'stream_event',
      'stream_event',
      'stream_event',
      'stream_event',
      'stream_event',
      'stream_event',
      'stream_event',
      'stream_event',
      'assistant',
    ]);
    assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
    assert.equal(outcome.text, 'Hello from the fake Gemini');
    assert.equal(outcome.numTurns, 1);
    const init = messages[0]!;
    assert.ok(init.type === 'system' && init.subtype === 'init');
    assert.match(driven.harness.nativeSessionId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(init.harness_session_id, driven.harness.nativeSessionId);
    assert.equal(init.model, MODEL);
    const events = messages.flatMap((m) => (m.type === 'stream_event' ? [m.event] : []));
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_stop',
      ],
    );
    const deltas = events.flatMap((e) =>
      e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? [e.delta.text] : [],
    );
    assert.deepEqual(deltas, ['Hello ', 'from ', 'the fake ', 'Gemini']);
    const last = messages.at(-1)!;
    assert.ok(last.type === 'assistant');
    assert.deepEqual(last.message.content, [{ type: 'text', text: deltas.join(''), citations: null }]);
    const start = events[0]!;
    assert.ok(start.type === 'message_start');
    assert.equal(start.message.id, last.message.id, 'deltas and final message share the message id');
    // Usage: Gemini's input tokens include the cached ones.
    assert.equal(usage.usage.input_tokens, FAKE_USAGE.promptTokenCount - FAKE_USAGE.cachedContentTokenCount);
    assert.equal(usage.usage.output_tokens, FAKE_USAGE.candidatesTokenCount);
    assert.equal(usage.usage.cache_read_input_tokens, FAKE_USAGE.cachedContentTokenCount);
    // The system prompt replaced Gemini's own; maxTurns reported once.
    const body = JSON.stringify(fake.requests.find((r) => r.action === 'streamGenerateContent')?.body);
    assert.match(body, /You are the agentpipe test agent\.\\n\\nAnswer briefly\./);
    assert.deepEqual(ownWarnings(warnings), [
      'harness gemini: ignored options gemini cannot honour: maxTurns (only model.maxSessionTurns in its ' +
        'settings.json)',
    ]);
    const again = await driven.prompt('again');
    assert.equal(again.outcome.subtype, 'success');
    assert.equal(ownWarnings(warnings).length, 1, 'the unsupported options are reported once per harness');
  } finally {
    await done();
  }
});

test('gemini: a shell command (bypassPermissions → yolo) as Bash with its output', async () => {
  const { driven, done } = await geminiOn(
    [
      { kind: 'call', name: 'run_shell_command', args: { command: 'echo hello-from-shell' }, text: 'Running it.' },
      { kind: 'text', chunks: ['The command printed hello.'] },
    ],
    { permissionMode: 'bypassPermissions' },
  );
  try {
    const { messages, outcome } = await driven.prompt('run echo');
    assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
    assert.deepEqual(typesOf(messages), ['system/init', 'assistant', 'assistant', 'user', 'assistant']);
    assert.deepEqual(texts(messages), ['Running it.', 'The command printed hello.']);
    const [use] = toolUses(messages);
    assert.equal(use?.name, 'Bash');
    assert.deepEqual(use?.input, { command: 'echo hello-from-shell' });
    const [result] = toolResults(messages);
    assert.equal(result?.block.tool_use_id, use?.id);
    assert.equal(result?.block.content, 'hello-from-shell');
    assert.equal(result?.block.is_error, undefined);
    assert.deepEqual(result?.result, { stdout: 'hello-from-shell', stderr: '', interrupted: false, isImage: false });
    assert.equal(outcome.numTurns, 2);
    assertOneTerminalUpdate(toAcpUpdates(messages));
  } finally {
    await done();
  }
});

test('gemini: a refused tool (default mode withholds the shell) is an error result; allowedTools lets it run, disallowedTools deny it', async () => {
  const script: GeminiReply[] = [
    { kind: 'call', name: 'run_shell_command', args: { command: 'echo allowed' } },
    { kind: 'text', chunks: ['ok'] },
  ];
  const refused = await geminiOn(script);
  try {
    const { messages, outcome } = await refused.driven.prompt('run echo');
    assert.equal(outcome.subtype, 'success');
    const [result] = toolResults(messages);
    assert.equal(result?.block.is_error, true);
    assert.match(String(result?.block.content), /run_shell_command/);
    assertOneTerminalUpdate(toAcpUpdates(messages));
  } finally {
    await refused.done();
  }
  const allowed = await geminiOn(script, { allowedTools: ['Bash(echo:*)'] });
  try {
    const { messages } = await allowed.driven.prompt('run echo');
    const [result] = toolResults(messages);
    assert.equal(result?.block.is_error, undefined);
    assert.equal(result?.block.content, 'allowed');
  } finally {
    await allowed.done();
  }
  const denied = await geminiOn(script, { permissionMode: 'bypassPermissions', disallowedTools: ['Bash'] });
  try {
    const { messages } = await denied.driven.prompt('run echo');
    const [result] = toolResults(messages);
    assert.equal(result?.block.is_error, true, 'disallowedTools deny the shell even in yolo mode');
  } finally {
    await denied.done();
  }
});

test('gemini: file edits (acceptEdits → auto_edit) as Edit and Write with diff-able results; the files changed', async () => {
  const dirs = harnessDirs('gemini-edit');
  writeFileSync(path.join(dirs.cwd, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  const { driven, cwd, done } = await geminiOn(
    [
      {
        kind: 'call',
        name: 'replace',
        args: { file_path: 'notes.txt', old_string: 'beta', new_string: 'BETA', instruction: 'uppercase beta' },
      },
      { kind: 'call', name: 'write_file', args: { file_path: 'new.txt', content: 'fresh file\n' } },
      { kind: 'text', chunks: ['Both files are done.'] },
    ],
    { permissionMode: 'acceptEdits' },
    dirs,
  );
  try {
    const { messages, outcome } = await driven.prompt('edit the notes');
    assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
    assert.deepEqual(typesOf(messages), ['system/init', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    assert.equal(readFileSync(path.join(cwd, 'notes.txt'), 'utf8'), 'alpha\nBETA\ngamma\n');
    assert.equal(readFileSync(path.join(cwd, 'new.txt'), 'utf8'), 'fresh file\n');
    const [edit, write] = toolUses(messages);
    assert.equal(edit?.name, 'Edit');
    assert.deepEqual(edit?.input, { file_path: path.join(cwd, 'notes.txt'), old_string: 'beta', new_string: 'BETA' });
    assert.equal(write?.name, 'Write');
    assert.deepEqual(write?.input, { file_path: path.join(cwd, 'new.txt'), content: 'fresh file\n' });
    const [edited, written] = toolResults(messages);
    assert.deepEqual(edited?.result, {
      filePath: path.join(cwd, 'notes.txt'),
      oldString: 'beta',
      newString: 'BETA',
      originalFile: 'alpha\nbeta\ngamma\n',
      userModified: false,
      replaceAll: false,
      structuredPatch: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' alpha', '-beta', '+BETA', ' gamma'] },
      ],
    });
    assert.deepEqual(written?.result, {
      type: 'create',
      filePath: path.join(cwd, 'new.txt'),
      content: 'fresh file\n',
      originalFile: null,
      structuredPatch: [],
      userModified: false,
    });
    // ACP: each call ends once, with the whole-file diff.
    const updates = toAcpUpdates(messages);
    assertOneTerminalUpdate(updates);
    const diffs = updates.flatMap((u) =>
      u.sessionUpdate === 'tool_call_update' && u.status === 'completed'
        ? (u.content ?? []).filter((c) => c.type === 'diff')
        : [],
    );
    assert.deepEqual(
      diffs.map((d) => [d.path, d.oldText, d.newText]),
      [
        [path.join(cwd, 'notes.txt'), 'alpha\nbeta\ngamma\n', 'alpha\nBETA\ngamma\n'],
        [path.join(cwd, 'new.txt'), null, 'fresh file\n'],
      ],
    );
  } finally {
    await done();
  }
});

test('gemini: a provider error (HTTP 500, no retries) is one failure with the API error', async () => {
  const { fake, driven, done } = await geminiOn([{ kind: 'error', status: 500, message: 'the fake backend is down' }]);
  try {
    const started = Date.now();
    const { messages, outcome } = await driven.prompt('hi');
    assert.ok(Date.now() - started < 15_000);
    assert.deepEqual(typesOf(messages), ['system/init']);
    assert.equal(outcome.subtype, 'error_during_execution');
    assert.equal(outcome.terminalReason, 'model_error');
    assert.equal(outcome.errors.length, 1);
    assert.match(outcome.errors[0]!, /500.*the fake backend is down/);
    assert.equal(fake.requests.filter((r) => r.action === 'streamGenerateContent').length, 1);
  } finally {
    await done();
  }
  const unauthorized = await geminiOn([{ kind: 'error', status: 401, message: 'API key not valid' }]);
  try {
    const { outcome } = await unauthorized.driven.prompt('hi');
    assert.equal(outcome.subtype, 'error_during_execution');
    assert.match(outcome.errors.join('\n'), /401.*API key not valid/);
  } finally {
    await unauthorized.done();
  }
});

test('gemini: an interrupt during a running shell command ends the turn interrupted, no process left', async () => {
  const marker = `sleep 47.${process.pid}`;
  const { driven, done } = await geminiOn(
    [
      { kind: 'call', name: 'run_shell_command', args: { command: marker } },
      { kind: 'text', chunks: ['not reached'] },
    ],
    { permissionMode: 'bypassPermissions' },
  );
  try {
    const started = Date.now();
    const { messages, outcome } = await driven.prompt('sleep', {
      onMessage: (m, controller) => {
        if (m.type === 'assistant' && m.message.content.some((b) => b.type === 'tool_use'))
          setTimeout(() => controller.abort(), 500);
      },
    });
    assert.ok(Date.now() - started < 15_000);
    assert.equal(outcome.terminalReason, 'aborted_streaming');
    assert.deepEqual(outcome.errors, [INTERRUPTED]);
    // A heartbeat (tool_progress) comes when the command ran past a second before the interrupt landed: load decides.
    assert.deepEqual(
      typesOf(messages).filter((t) => t !== 'tool_progress'),
      ['system/init', 'assistant', 'user', 'user'],
    );
    const [result] = toolResults(messages);
    assert.equal(result?.block.content, INTERRUPTED_TOOLS);
    assert.equal(result?.block.is_error, true);
    assertOneTerminalUpdate(toAcpUpdates(messages));
    assert.equal(liveGroupCount(), 0);
    // Gemini runs commands in their own process group: the command must not outlive it.
    for (let i = 0; i < 20 && processesWith(marker).length; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(processesWith(marker), []);
  } finally {
    await done();
  }
});

test('gemini: bad output (non-JSON, unknown events, exit 3 without result) is one failure, one warning per kind', async () => {
  const dir = scratchDir('gemini-bad');
  const script = path.join(dir, 'fake-gemini.mjs');
  writeFileSync(
    script,
    [
      'console.log(JSON.stringify({ type: "init", session_id: "bad-session", model: "fake" }));',
      'console.log("this is not JSON");',
      'console.log("neither is this");',
      'console.log(JSON.stringify({ type: "mystery", n: 1 }));',
      'console.log(JSON.stringify({ type: "mystery", n: 2 }));',
      'console.error("fatal: the fake gave up");',
      'process.exitCode = 3;',
    ].join('\n'),
  );
  const { cwd } = harnessDirs('gemini-bad');
  const driven = await driveHarness({ name: 'gemini', cwd, command: [process.execPath, script] });
  try {
    const { messages, outcome, warnings } = await driven.prompt('hi');
    // Each kind once: on stderr and in the stream, as a system notice after system/init.
    assert.deepEqual(typesOf(messages), ['system/init', 'system/informational', 'system/informational']);
    assert.equal(outcome.subtype, 'error_during_execution');
    assert.equal(outcome.errors.length, 1);
    assert.match(outcome.errors[0]!, /exited with code 3 before its result: fatal: the fake gave up/);
    assert.deepEqual(warnings, [
      'harness gemini: ignored an unknown non-JSON line (this is not JSON)',
      'harness gemini: ignored an unknown event type mystery',
    ]);
    assert.deepEqual(noticesOf(messages), warnings);
    assert.equal(driven.harness.nativeSessionId, 'bad-session');
  } finally {
    await driven.harness.close();
  }
});

test('gemini: an untrusted folder is one failure saying how to trust it', async () => {
  const fake = await startFakeGemini([{ kind: 'text', chunks: ['unused'] }]);
  const { home, cwd } = harnessDirs('gemini-trust');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  const driven = await driveHarness(
    { name: 'gemini', cwd, baseUrl: fake.url, model: MODEL },
    { HOME: home, TMPDIR: home, GEMINI_API_KEY: 'fake-key' },
  );
  try {
    const { messages, outcome } = await driven.prompt('hi');
    assert.deepEqual(typesOf(messages), ['system/init']);
    assert.equal(outcome.subtype, 'error_during_execution');
    assert.match(
      outcome.errors[0]!,
      // eslint-disable-next-line max-len -- an expected message as one regex literal reads best whole
      /^gemini exited with code 55 before its result: .*not running in a trusted directory.*GEMINI_CLI_TRUST_WORKSPACE=true/s,
    );
    assert.doesNotMatch(outcome.errors[0]!, /\u001b/);
    assert.equal(fake.requests.length, 0);
  } finally {
    await driven.harness.close();
    await fake.close();
  }
});
