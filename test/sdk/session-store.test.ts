/**
 * The official SDK's `sessionStore` (it passes `--session-mirror`): every transcript line reaches
 * the store as the session runs, and a session resumes from the store alone on a machine that
 * has no transcript of it. Driven by the REAL SDK with its own InMemorySessionStore.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { InMemorySessionStore, query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { sdkOptions, runPrompts } from './helpers.ts';
import { tempDir } from '../helpers/workspace.ts';

test('sessionStore: the transcript is mirrored as it is written, and a session resumes from the store on another machine', async () => {
  const store = new InMemorySessionStore();
  const first = sdkOptions([{ text: 'first answer' }], { sessionStore: store });
  const one = await runPrompts(first, ['first prompt']);
  const result = one.messages.at(-1);
  assert.ok(result?.type === 'result' && result.subtype === 'success', first.stderrText());
  const key = { projectKey: realpathSync(first.cwd).replace(/[^a-zA-Z0-9]/g, '-'), sessionId: result.session_id };
  const entries = store.getEntries(key);
  assert.ok(
    entries.length > 0,
    `the store got the session under ${JSON.stringify(key)}: ` +
      `${JSON.stringify(await store.listSessions(key.projectKey))}`,
  );
  assert.deepEqual(
    entries.map((e) => e.type),
    ['system', 'user', 'assistant', 'result'],
    'init, prompt, answer, result: each line as written',
  );
  assert.equal(entries.at(-1)!.uuid, result.uuid);

  // Another machine: an empty agentpipe home, the same folder, the store.
  const second = sdkOptions([{ text: 'second answer' }], {
    sessionStore: store,
    cwd: first.cwd,
    resume: result.session_id,
  });
  second.env = { ...second.env, AGENTPIPE_HOME: tempDir() };
  const two = await runPrompts(second, ['second prompt']);
  const resumed = two.messages.at(-1);
  assert.ok(resumed?.type === 'result' && resumed.subtype === 'success', second.stderrText());
  assert.equal(resumed.session_id, result.session_id);
  assert.equal(
    two.exported,
    '> first prompt\n\nfirst answer\n\n> second prompt\n\nsecond answer',
    'the history came from the store',
  );
  const after = store.getEntries(key).map((e) => e.type);
  assert.deepEqual(
    after.slice(4),
    ['agentpipe_snapshot', 'system', 'user', 'assistant', 'result'],
    'the resumed session appends to the same stored session',
  );
});

test('--resume-drops-turn refuses a truncating resume that would drop more than that turn', async () => {
  const options = sdkOptions([{ text: 'one' }, { text: 'two' }]);
  const { messages } = await runPrompts(options, ['p1', 'p2']);
  const results = messages.filter((m) => m.type === 'result');
  const firstAnswer = messages.find((m) => m.type === 'assistant');
  assert.ok(firstAnswer?.type === 'assistant' && results[0]?.type === 'result');
  // Dropping "the turn of p2" from the first answer on would also drop the first result: refused, whatever uuid is
  // named.
  const refused = sdkOptions([{ text: 'x' }], {
    cwd: options.cwd,
    resume: results[0].session_id,
    resumeSessionAt: firstAnswer.uuid,
    resumeDropsTurn: '00000000-0000-4000-8000-000000000001',
  });
  // As Claude Code: the refusal is the prompt's one result (error_during_execution), its error saying so.
  const seen: SDKMessage[] = [];
  try {
    for await (const m of query({ prompt: 'again', options: refused })) seen.push(m);
  } catch (error) {
    if (seen.at(-1)?.type !== 'result') throw error;
  }
  assert.deepEqual(
    seen.map((m) => m.type),
    ['result'],
  );
  const refusal = seen[0]!;
  assert.ok(refusal.type === 'result' && refusal.subtype === 'error_during_execution');
  assert.match(refusal.errors[0]!, /^Resume rejected by --resume-drops-turn: after /);
  assert.equal(refusal.session_id, results[0].session_id);
});
