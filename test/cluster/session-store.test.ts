/**
 * redisSessionStore against the SDK's own InMemorySessionStore: the same operations give the
 * same answers (subpath keys, order, null for unknown keys, listings, summaries, deletes); what a
 * real adapter adds (idempotent retries, concurrent appenders); and end to end, the official
 * SDK's query() on agentpipe's CLI with the Redis store, resumed from Redis on "another machine".
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  foldSessionSummary,
  InMemorySessionStore,
  query,
  type SDKMessage,
  type SessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk';
import { redisSessionStore } from '../../src/cluster/redis.ts';
import { startRedis } from './redis-server.ts';
import { runPrompts, sdkOptions } from '../sdk/helpers.ts';
import { tempDir } from '../helpers/workspace.ts';
import { ROOT } from '../helpers/cli.ts';

const server = await startRedis();
const stores: Array<{ close(): Promise<void> }> = [];
after(() => Promise.all(stores.map((s) => s.close())));
/** A Redis store with its own prefix (tests do not see each other's keys). */
function redisStore(options: { dedupe?: boolean } = {}): ReturnType<typeof redisSessionStore> {
  const store = redisSessionStore({ redis: server.url, prefix: `t${randomUUID().slice(0, 8)}`, ...options });
  stores.push(store);
  return store;
}

// The Redis store is an SDK SessionStore (checked by tsc).
const _typed: SessionStore = redisSessionStore({ redis: server.url });

let clock = 0;
/** An entry with a uuid and timestamp from a counter: replaying the counter gives the same entries. */
const entry = (type: string, extra: Record<string, unknown> = {}): SessionStoreEntry => ({
  type,
  uuid: `00000000-0000-4000-8000-${String(clock).padStart(12, '0')}`,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString(),
  ...extra,
});

/** The same operations on any store; what it answered, in a comparable form. */
async function scenario(store: SessionStore): Promise<Record<string, unknown>> {
  const project = 'tenant/a:{b} c';
  const other = '-tmp-other';
  const s1 = { projectKey: project, sessionId: 'session-1' };
  const s2 = { projectKey: project, sessionId: 'session-2' };
  const sub1 = { ...s1, subpath: 'subagents/agent-x1' };
  const sub2 = { ...s1, subpath: 'subagents/nested/agent-x2' };
  const out: Record<string, unknown> = {};
  const sorted = <T>(items: T[], by: (t: T) => string): T[] => [...items].sort((a, b) => by(a).localeCompare(by(b)));
  const listing = async (p: string): Promise<unknown> => {
    const sessions = await store.listSessions!(p);
    assert.ok(
      sessions.every((s) => Number.isInteger(s.mtime) && s.mtime > 0),
      'mtimes are integer epoch ms',
    );
    const summaries = await store.listSessionSummaries!(p);
    for (const summary of summaries)
      assert.equal(summary.mtime, sessions.find((s) => s.sessionId === summary.sessionId)?.mtime, 'one clock');
    return {
      sessions: sorted(sessions, (s) => s.sessionId).map((s) => s.sessionId),
      summaries: sorted(summaries, (s) => s.sessionId).map((s) => ({ sessionId: s.sessionId, data: s.data })),
    };
  };

  out.unknown = await store.load(s1);
  const batch1 = [
    entry('user', { message: { role: 'user', content: 'first prompt' }, cwd: '/work', isSidechain: false }),
    entry('assistant', { message: { content: [] } }),
  ];
  const title = { type: 'custom-title', customTitle: 'My title', sessionId: 'session-1' };
  await store.append(s1, batch1);
  await store.append(s1, [title, entry('user', { message: { role: 'user', content: 'second prompt' } })]);
  await store.append(sub1, [entry('user', { isSidechain: true, agentId: 'x1' })]);
  await store.append(sub2, [entry('assistant', { isSidechain: true })]);
  await store.append(sub1, [entry('assistant', { isSidechain: true })]);
  await store.append(s2, []);
  await store.append({ projectKey: other, sessionId: 'session-1' }, [
    entry('user', { message: { role: 'user', content: 'elsewhere' } }),
  ]);
  out.main = await store.load(s1);
  out.sub1 = await store.load(sub1);
  out.sub2 = await store.load(sub2);
  out.empty = await store.load(s2);
  out.unknownSub = await store.load({ ...s1, subpath: 'subagents/agent-none' });
  out.subkeys = (await store.listSubkeys!(s1)).sort();
  out.subkeysOfEmpty = await store.listSubkeys!(s2);
  out.listing = await listing(project);
  out.otherListing = await listing(other);
  await store.delete!(sub1);
  out.afterSubDelete = {
    sub1: await store.load(sub1),
    sub2: await store.load(sub2),
    subkeys: await store.listSubkeys!(s1),
    main: (await store.load(s1))?.length,
  };
  await store.delete!(s1);
  out.afterDelete = {
    main: await store.load(s1),
    sub2: await store.load(sub2),
    subkeys: await store.listSubkeys!(s1),
    listing: await listing(project),
  };
  out.otherKept = (await store.load({ projectKey: other, sessionId: 'session-1' }))?.length;
  await store.append(s1, [entry('user', { message: { role: 'user', content: 'again' } })]);
  out.rewritten = { main: await store.load(s1), listing: await listing(project) };
  return out;
}

test("contract: the Redis store answers exactly as the SDK's InMemorySessionStore", async () => {
  const saved = clock;
  const expected = await scenario(new InMemorySessionStore());
  clock = saved;
  const actual = await scenario(redisStore());
  assert.deepEqual(actual, expected);
  assert.equal((expected.main as unknown[]).length, 4);
  assert.equal(expected.unknown, null);
});

test('a retried batch lands once (uuid is the idempotency key); entries without a uuid are always kept', async () => {
  const key = { projectKey: 'p', sessionId: randomUUID() };
  const batch = [entry('user'), entry('assistant'), { type: 'tag', tag: 'x' }];
  const store = redisStore();
  await store.append(key, batch);
  await store.append(key, batch);
  assert.deepEqual(
    (await store.load(key))?.map((e) => e.type),
    ['user', 'assistant', 'tag', 'tag'],
  );
  const keepAll = redisStore({ dedupe: false });
  const memory = new InMemorySessionStore();
  for (const s of [keepAll, memory]) {
    await s.append(key, batch);
    await s.append(key, batch);
  }
  assert.deepEqual(
    await keepAll.load(key),
    await memory.load(key),
    'dedupe: false keeps every copy, as InMemorySessionStore does',
  );
});

test("concurrent appenders on one session: every entry once, each appender's in order, one consistent summary", async () => {
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const appenders = Array.from({ length: 10 }, () => redisSessionStore({ redis: server.url, prefix }));
  stores.push(...appenders);
  const key = { projectKey: 'p', sessionId: randomUUID() };
  await Promise.all(
    appenders.map(async (store, a) => {
      for (let i = 0; i < 5; i++)
        await store.append(key, [entry('user', { message: { role: 'user', content: `a${a}-${i}` }, n: `${a}-${i}` })]);
    }),
  );
  const loaded = (await appenders[0]!.load(key))!;
  assert.equal(loaded.length, 50);
  for (let a = 0; a < 10; a++) {
    assert.deepEqual(
      loaded.filter((e) => String(e.n).startsWith(`${a}-`)).map((e) => e.n),
      [0, 1, 2, 3, 4].map((i) => `${a}-${i}`),
    );
  }
  const [summary] = await appenders[0]!.listSessionSummaries('p');
  const [listed] = await appenders[0]!.listSessions('p');
  assert.equal(summary?.mtime, listed?.mtime);
  // Folding every entry at once in the stored order gives the same summary: each batch was folded once, in commit
  // order.
  assert.deepEqual(summary?.data, foldSessionSummary(undefined, key, loaded).data);
  assert.equal(
    summary?.data.firstPrompt,
    (loaded[0]!.message as { content: string }).content,
    'the first prompt committed is the first prompt',
  );
});

test('end to end: the official SDK on agentpipe mirrors the transcript to Redis and resumes from it on another machine', async () => {
  const prefix = `e2e${randomUUID().slice(0, 8)}`;
  const store = redisSessionStore({ redis: server.url, prefix });
  stores.push(store);
  const first = sdkOptions([{ text: 'first answer' }], { sessionStore: store });
  const one = await runPrompts(first, ['first prompt']);
  const result = one.messages.at(-1);
  assert.ok(result?.type === 'result' && result.subtype === 'success', first.stderrText());
  const key = { projectKey: realpathSync(first.cwd).replace(/[^a-zA-Z0-9]/g, '-'), sessionId: result.session_id };
  const entries = (await store.load(key)) ?? [];
  assert.deepEqual(
    entries.map((e) => e.type),
    ['system', 'user', 'assistant', 'result'],
    first.stderrText(),
  );
  assert.equal(entries.at(-1)!.uuid, result.uuid);
  assert.deepEqual(
    (await store.listSessions(key.projectKey)).map((s) => s.sessionId),
    [result.session_id],
  );

  // Another machine: an empty agentpipe home, the same folder, only Redis has the session — and a new store object.
  const elsewhere = redisSessionStore({ redis: server.url, prefix });
  stores.push(elsewhere);
  const second = sdkOptions([{ text: 'second answer' }], {
    sessionStore: elsewhere,
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
    'the history came from Redis',
  );
  const after = ((await store.load(key)) ?? []).map((e) => e.type);
  assert.deepEqual(
    after.slice(4),
    ['agentpipe_snapshot', 'system', 'user', 'assistant', 'result'],
    'the resumed session appends to the same stored session',
  );
});

test('without @anthropic-ai/claude-agent-sdk (an optional peer dependency), the main transcript’s append says what to install; subagent transcripts and the foldSessionSummary option need nothing', async () => {
  const dir = tempDir();
  // A process in which the package cannot be found (a resolve hook refuses it), as in a project without it.
  writeFileSync(
    path.join(dir, 'hooks.mjs'),
    `export async function resolve(specifier, context, next) {
      if (specifier === '@anthropic-ai/claude-agent-sdk')
        throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
      return next(specifier, context);
    }\n`,
  );
  writeFileSync(
    path.join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`,
  );
  const store = pathToFileURL(path.join(ROOT, 'dist/cluster/redis.js')).href;
  const script = `
    const { redisSessionStore } = await import(${JSON.stringify(store)});
    const entry = { type: 'user', uuid: 'u1', message: { role: 'user', content: 'hi' } };
    const store = redisSessionStore({ redis: ${JSON.stringify(server.url)} });
    await store.append({ projectKey: 'p', sessionId: 's', subpath: 'agent-1' }, [entry]);
    const fold = (prev, key) => ({ sessionId: key.sessionId, mtime: 1, data: {} });
    const folded = redisSessionStore({ redis: ${JSON.stringify(server.url)}, foldSessionSummary: fold });
    await folded.append({ projectKey: 'p', sessionId: 's2' }, [entry]);
    try { await store.append({ projectKey: 'p', sessionId: 's' }, [entry]); console.log('appended'); }
    catch (error) { console.log(error.message); }
    await store.close(); await folded.close();`;
  const run = spawnSync(
    process.execPath,
    ['--import', path.join(dir, 'register.mjs'), '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(
    run.stdout.trim(),
    new RegExp(
      String.raw`^agentpipe/redis: the main transcript's summary needs @anthropic-ai/claude-agent-sdk, an optional ` +
        String.raw`peer dependency of agentpipe that is not installed \(npm install ` +
        String.raw`@anthropic-ai/claude-agent-sdk\), or the foldSessionSummary option \(Cannot find package`,
    ),
  );
});
