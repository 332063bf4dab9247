/**
 * The control requests beyond a prompt's run, sent by the REAL official SDK: the interrupt
 * receipt, the prompt queue, usage, title, side question, settings, permission rules, hooks,
 * read state, extra folders, and the documented refusals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type Query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, promptStream, sdkOptions, textOf } from './helpers.ts';
import { tempDir } from '../helpers/workspace.ts';

/** Methods of the SDK's Query that its `sdk.d.ts` does not declare (each sends one control request). */
interface Undeclared {
  request(request: Record<string, unknown>): Promise<{ response: Record<string, unknown> }>;
  cancelAsyncMessage(uuid: string): Promise<boolean>;
  renameSession(title: string, sessionId?: string): Promise<void>;
  generateSessionTitle(description: string, options?: { persist?: boolean }): Promise<string>;
  askSideQuestion(question: string): Promise<{ response: string; synthetic: boolean } | null>;
  getSettings(): Promise<Record<string, any>>;
  getHooksListing(): Promise<Record<string, any>>;
  listPermissionRules(): Promise<Record<string, any>>;
  getTaskOutput(taskId: string): Promise<Record<string, unknown>>;
  exportConversation(): Promise<Record<string, unknown>>;
  getStatus(): Promise<Record<string, unknown>>;
}
const undeclared = (q: Query): Undeclared => q as unknown as Undeclared;

const SLOW = { text: 'a slow answer that is interrupted before it ends', delay_ms: 40, chunk_size: 1 };
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';

test('interrupt answers with its receipt: the queued prompts that will still run (interrupt_receipt_v1)', async () => {
  const prompts = promptStream();
  prompts.push('first', A);
  prompts.push('second', B);
  const q = query({
    prompt: prompts,
    options: sdkOptions([SLOW, { text: 'second answer' }], { includePartialMessages: true }),
  });
  const messages: SDKMessage[] = [];
  let receipt: unknown;
  for await (const message of q) {
    messages.push(message);
    if (message.type === 'system' && message.subtype === 'init')
      assert.deepEqual(message.capabilities, ['interrupt_receipt_v1', 'interrupt_cancel_queued_v1']);
    if (message.type === 'stream_event' && messages.filter((m) => m.type === 'stream_event').length === 8) {
      receipt = await q.interrupt();
      prompts.end();
    }
  }
  assert.deepEqual(receipt, { still_queued: [B] });
  const results = messages.filter((m) => m.type === 'result');
  assert.deepEqual(
    results.map((r) => r.type === 'result' && r.subtype),
    ['error_during_execution', 'success'],
  );
  assert.equal(textOf(messages.filter((m) => m.type === 'assistant').at(-1)), 'second answer');
});

test('interrupt with cancel_queued drops the queued prompts too; cancel_async_message drops one', async () => {
  const prompts = promptStream();
  prompts.push('first', A);
  prompts.push('second', B);
  prompts.push('third', C);
  const q = query({
    prompt: prompts,
    options: sdkOptions([SLOW, { text: 'never' }], { includePartialMessages: true }),
  });
  const messages: SDKMessage[] = [];
  let cancelled: boolean[] = [];
  let receipt: unknown;
  // The SDK throws when the last result is an error (here the interrupted prompt's), as with Claude Code.
  await assert.rejects(async () => {
    for await (const message of q) {
      messages.push(message);
      if (message.type !== 'stream_event' || messages.filter((m) => m.type === 'stream_event').length !== 8) continue;
      cancelled = [await undeclared(q).cancelAsyncMessage(B), await undeclared(q).cancelAsyncMessage(B)];
      receipt = (await undeclared(q).request({ subtype: 'interrupt', cancel_queued: true })).response;
      prompts.end();
    }
  }, /\[ede_diagnostic\] result_type=user last_content_type=n\/a stop_reason=null/);
  assert.deepEqual(cancelled, [true, false], 'a queued prompt is cancelled once; then it is gone');
  assert.deepEqual(receipt, { still_queued: [], cancelled: [C] });
  assert.deepEqual(
    kinds(messages.filter((m) => m.type !== 'stream_event')).filter((k) => k === 'result'),
    ['result'],
    'only the interrupted prompt ran',
  );
});

test('get_usage reports the session: cost, durations, lines changed, usage per model', async () => {
  const options = sdkOptions(
    [
      {
        tool_calls: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'one\ntwo\nthree\n' } }],
        usage: { input_tokens: 100, output_tokens: 10 },
      },
      { text: 'written', usage: { input_tokens: 120, output_tokens: 5 } },
    ],
    { permissionMode: 'acceptEdits' },
  );
  const prompts = promptStream();
  prompts.push('write notes', A);
  const q = query({ prompt: prompts, options });
  let usage: Awaited<ReturnType<Query['usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET']>> | undefined;
  let result: SDKMessage | undefined;
  for await (const message of q) {
    if (message.type === 'result') {
      result = message;
      usage = await q.usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET();
      prompts.end();
    }
  }
  assert.ok(result?.type === 'result' && usage);
  assert.equal(usage.session.total_cost_usd, result.total_cost_usd);
  assert.equal(usage.session.total_lines_added, 3);
  assert.equal(usage.session.total_lines_removed, 0);
  assert.ok(usage.session.total_duration_ms >= usage.session.total_api_duration_ms);
  assert.deepEqual(Object.keys(usage.session.model_usage), ['scripted']);
  assert.equal(usage.session.model_usage.scripted!.inputTokens, 220);
  assert.equal(usage.subscription_type, null);
  assert.equal(usage.rate_limits_available, false);
});

test('rename_session and generate_session_title name the session in its transcript; side_question answers without joining the history', async () => {
  const options = sdkOptions([
    { text: 'hello there' },
    { text: '"Fixing the flaky login test."' },
    { text: 'You said hi.' },
    { text: 'still hello' },
  ]);
  const prompts = promptStream();
  prompts.push('hi', A);
  const q = query({ prompt: prompts, options });
  const messages: SDKMessage[] = [];
  let title = '';
  let side: unknown;
  let sessionId = '';
  let exported: unknown;
  for await (const message of q) {
    messages.push(message);
    if (message.type === 'result' && !title) {
      sessionId = message.session_id;
      await undeclared(q).renameSession('My session', sessionId);
      const wrong = await undeclared(q)
        .renameSession('x', '11111111-1111-4111-8111-111111111111')
        .then(
          () => 'renamed',
          (e: Error) => e.message,
        );
      assert.match(wrong, /this process runs session/);
      title = await undeclared(q).generateSessionTitle('the login test fails one run in five', { persist: true });
      side = await undeclared(q).askSideQuestion('what did I say?');
      exported = await undeclared(q).exportConversation();
      prompts.push('again', B);
      prompts.end();
    }
  }
  assert.equal(title, 'Fixing the flaky login test');
  assert.deepEqual(side, { response: 'You said hi.', synthetic: false });
  assert.deepEqual(exported, { format: 'text', content: '> hi\n\nhello there' });
  // The side question's exchange is not in the history: the next answer is the next scripted turn.
  assert.equal(textOf(messages.filter((m) => m.type === 'assistant').at(-1)), 'still hello');
  const transcript = path.join(process.env.AGENTPIPE_HOME!, 'projects');
  const file = findTranscript(transcript, sessionId);
  const titles = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.type === 'custom-title');
  assert.deepEqual(
    titles.map((t) => t.customTitle),
    ['My session', 'Fixing the flaky login test'],
  );
});

function findTranscript(root: string, sessionId: string): string {
  for (const dir of readdirSync(root)) {
    const file = path.join(root, dir, `${sessionId}.jsonl`);
    if (existsSync(file)) return file;
  }
  throw new Error(`no transcript for ${sessionId}`);
}

test('apply_flag_settings applies rules, hooks and model at once; get_settings and list_permission_rules show every layer', async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, '.agentpipe'));
  writeFileSync(
    path.join(dir, '.agentpipe', 'settings.json'),
    JSON.stringify({
      permissions: { allow: ['Bash(ls:*)'] },
      hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'true' }] }] },
    }),
  );
  const options = sdkOptions(
    [{ tool_calls: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] }, { text: 'done' }],
    { cwd: dir, settingSources: ['project'], permissionMode: 'acceptEdits', allowedTools: ['Read'] },
  );
  const prompts = promptStream();
  const q = query({ prompt: prompts, options });
  await undeclared(q).request({
    subtype: 'apply_flag_settings',
    settings: { permissions: { deny: ['Write'] }, model: 'scripted-2' },
  });
  const settings = await undeclared(q).getSettings();
  assert.deepEqual(
    settings.sources.map((s: { source: string }) => s.source),
    ['projectSettings', 'flagSettings'],
  );
  assert.deepEqual(
    settings.effective.permissions,
    { deny: ['Write'] },
    'a later layer replaces a key (flag settings win)',
  );
  assert.equal(settings.applied.model, 'scripted-2');
  const rules = await undeclared(q).listPermissionRules();
  assert.deepEqual(
    rules.state.rules.map((r: Record<string, string>) => `${r.behavior} ${r.rule} ${r.source}`),
    ['allow Read cliArg', 'allow Bash(ls:*) projectSettings', 'deny Write flagSettings'],
  );
  assert.equal(rules.state.originalCwd, dir);
  const hooks = await undeclared(q).getHooksListing();
  assert.deepEqual(
    hooks.hooks.map((h: Record<string, string>) => `${h.event} ${h.matcher} ${h.source} ${h.commandText}`),
    ['PreToolUse Write projectSettings true'],
  );
  assert.deepEqual(hooks.events, [
    { name: 'PreToolUse', summary: 'Before tool execution', supportsMatcher: true, hookCount: 1 },
  ]);
  const bad = await undeclared(q)
    .request({ subtype: 'apply_flag_settings', settings: { permissions: { deny: 'Write' } } })
    .then(
      () => 'applied',
      (e: Error) => e.message,
    );
  assert.match(bad, /apply_flag_settings: permissions.deny must be an array/);
  prompts.push('write a.txt', A);
  prompts.end();
  const messages: SDKMessage[] = [];
  for await (const message of q) messages.push(message);
  const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
  assert.ok(init?.type === 'system' && init.subtype === 'init' && init.model === 'scripted-2');
  const result = messages.at(-1);
  assert.ok(result?.type === 'result');
  assert.deepEqual(
    result.permission_denials.map((d) => d.tool_name),
    ['Write'],
    'the deny rule applied live',
  );
  assert.equal(existsSync(path.join(dir, 'a.txt')), false);
});

test('update_settings writes only the keys Claude Code allows, into a settings file the session reads', async () => {
  const dir = tempDir();
  const q = query({ prompt: promptStream(), options: sdkOptions([], { cwd: dir, settingSources: ['local'] }) });
  await q.updateSettings('localSettings', { outputStyle: 'Explanatory' });
  assert.deepEqual(JSON.parse(readFileSync(path.join(dir, '.agentpipe', 'settings.local.json'), 'utf8')), {
    outputStyle: 'Explanatory',
  });
  const hooks = await q.updateSettings('localSettings', { hooks: 'x' }).then(
    () => 'written',
    (e: Error) => e.message,
  );
  assert.match(hooks, /localSettings takes only outputStyle; "hooks" is not writable from a client/);
  const user = await q.updateSettings('userSettings', { effortLevel: 'high' }).then(
    () => 'written',
    (e: Error) => e.message,
  );
  assert.match(user, /this session does not read userSettings/);
  q.close();
});

test('seed_read_state lets the model edit a file the client showed it; register_repo_root adds a working folder', async () => {
  const dir = tempDir({ 'seen.txt': 'old text\n' });
  const other = tempDir();
  const { mtimeMs } = statSync(path.join(dir, 'seen.txt'));
  const options = sdkOptions(
    [
      {
        tool_calls: [
          { name: 'Edit', input: { file_path: 'seen.txt', old_string: 'old', new_string: 'new' } },
          { name: 'Write', input: { file_path: path.join(other, 'made.txt'), content: 'made' } },
        ],
      },
      { text: 'done' },
    ],
    { cwd: dir, permissionMode: 'acceptEdits' },
  );
  const prompts = promptStream();
  const q = query({ prompt: prompts, options });
  await q.seedReadState('seen.txt', mtimeMs);
  await undeclared(q).request({ subtype: 'register_repo_root', directory: other });
  prompts.push('edit', A);
  prompts.end();
  const messages: SDKMessage[] = [];
  for await (const message of q) messages.push(message);
  assert.equal(readFileSync(path.join(dir, 'seen.txt'), 'utf8'), 'new text\n');
  assert.equal(readFileSync(path.join(other, 'made.txt'), 'utf8'), 'made', 'acceptEdits covers the registered folder');
  const result = messages.at(-1);
  assert.ok(result?.type === 'result' && result.subtype === 'success' && result.permission_denials.length === 0);
});

test("subtypes of features agentpipe lacks get an error that says so; the rest answer in the SDK's shapes", async () => {
  const prompts = promptStream();
  const q = query({ prompt: prompts, options: sdkOptions([{ text: 'still here' }]) });
  const refused = await undeclared(q)
    .request({ subtype: 'claude_authenticate' })
    .then(
      () => 'answered',
      (e: Error) => e.message,
    );
  assert.match(refused, /claude_authenticate is not available in agentpipe: .*ANTHROPIC_API_KEY/);
  const unknown = await undeclared(q)
    .request({ subtype: 'no_such_subtype' })
    .then(
      () => 'answered',
      (e: Error) => e.message,
    );
  assert.match(unknown, /Unsupported control request subtype: no_such_subtype/);
  const task = await undeclared(q)
    .getTaskOutput('t1')
    .then(
      () => 'answered',
      (e: Error) => e.message,
    );
  assert.match(task, /no background task "t1"/);
  assert.equal(await q.backgroundTasks(), false);
  assert.deepEqual(await q.reloadSkills(), { skills: [] });
  assert.deepEqual(await q.reloadOutputStyles(), { available_output_styles: ['default'] });
  const status = await undeclared(q).getStatus();
  assert.equal(status.model, 'scripted');
  assert.deepEqual(
    (await undeclared(q).request({ subtype: 'set_has_subscribers', has_subscribers: false })).response,
    {},
  );
  prompts.push('are you alive?', A);
  prompts.end();
  const messages: SDKMessage[] = [];
  for await (const message of q) messages.push(message);
  assert.deepEqual(kinds(messages), ['system/init', 'assistant', 'result']);
});
