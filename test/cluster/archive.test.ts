/**
 * Bounded Redis, with real processes on a private Redis: each session's inbox is trimmed as its
 * input is handled; a session whose run ended is archived after `--archive-after` ms idle to a
 * JSONL transcript (the single-process format) and its keys are deleted; a client that comes
 * back with the last message it has gets the session restored from the archive, and its next
 * prompt sees the whole history; `agentpipe --resume <archive>` resumes it in one process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { parseLines, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { SessionLog } from '../../src/cluster/redis.ts';
import { readTranscript } from '../../src/session/transcript-format.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, sessionOf, startFrontEnd, startWorker, uuids } from './cluster.ts';

const redis = await startRedis();
const durable = (messages: Array<Record<string, any>>) =>
  messages.filter((m) => m.type !== 'stream_event' && m.type !== 'tool_progress');

test('the inbox is trimmed as its input is handled; an idle session is archived, its keys deleted, and it comes back from the archive', async () => {
  const dir = tempDir();
  const archiveDir = path.join(dir, 'archive');
  const debugFile = path.join(dir, 'debug.log');
  const script = writeScript(dir, [{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
  const worker = await startWorker(redis.url, {}, ['--archive-dir', archiveDir, '--archive-after', '300']);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir],
    ...['--debug', 'api', '--debug-file', debugFile],
  ]);
  const log = new SessionLog({ redis: redis.url });
  const raw = new Redis(redis.url);
  try {
    const client = new Client(front.url);
    await client.open();
    for (const [i, text] of ['first', 'second', 'third'].entries()) {
      client.send(prompt(text));
      await client.until(() => client.results().length === i + 1, `result ${i + 1}`);
    }
    const sessionId = sessionOf(client.messages);
    // Three prompts went through the inbox; the handled ones are trimmed (the last one stays: the cursor's).
    assert.equal(await log.inputLength(sessionId), 1, 'the inbox keeps only the entry the cursor is at');
    client.send('{"type":"end_input"}\n');
    assert.deepEqual(await client.closed, { code: 1000, reason: 'session ended' });

    const [, file, count] = await worker.waitFor(
      new RegExp(`session ${sessionId}: archived to (\\S+) \\((\\d+) lines\\)`),
      15_000,
    );
    assert.equal(file, path.join(archiveDir, `${sessionId}.jsonl`));
    const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
    assert.deepEqual([mode(archiveDir), mode(file!)], ['700', '600'], "an archive is its owner's only");
    assert.deepEqual(await raw.keys(`ap:{${sessionId}}:*`), [], 'every Redis key of the session is gone');
    assert.equal(await raw.exists(`agentpipe:sessions:${sessionId}`), 0, 'no job left for it');
    const lines = await readTranscript(file!, (warning) => assert.fail(warning));
    assert.equal(lines.length, Number(count));
    const archived = lines.flatMap((l) => (typeof l.uuid === 'string' ? [l.uuid] : []));
    assert.deepEqual(
      archived.filter((u) => uuids(durable(client.messages)).includes(u)),
      uuids(durable(client.messages)),
      'the archive holds every message the client got, in order',
    );
    assert.equal(
      lines.filter((l) => l.type === 'user' && (l as Record<string, unknown>).agentpipe_prompt === true).length,
      3,
      'and the three prompts',
    );

    // The client comes back with the last message it has: the session is restored from the archive.
    const lastResult = client.results().at(-1)!;
    writeScript(dir, [{ text: 'four' }]);
    const back = new Client(`${front.url}?session=${sessionId}&from=${lastResult.uuid}`);
    await back.open();
    back.send(prompt('fourth'));
    await back.until(() => back.results().length === 1, 'the result after the restore');
    await worker.waitFor(new RegExp(`session ${sessionId}: restored ${count} lines from`));
    assert.deepEqual(
      back.messages.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type)),
      ['system/init', 'assistant', 'result'],
      'only what came after its last message',
    );
    assert.equal(back.results()[0]!.result, 'four');
    assert.ok(back.messages.every((m) => m.session_id === sessionId));
    const requests = readFileSync(debugFile, 'utf8')
      .split('\n')
      .filter((l) => /request: model/.test(l));
    assert.match(requests.at(-1)!, /, 7 messages,/, `the restored session has its history:\n${requests.join('\n')}`);
    back.send('{"type":"end_input"}\n');
    await back.closed;
    await worker.waitFor(new RegExp(`archived to \\S+ \\(\\d+ lines\\)[^]*session ${sessionId}: archived to`), 15_000);
    assert.deepEqual(await raw.keys(`ap:{${sessionId}}:*`), [], 'archived again');

    // One process resumes the archive as any transcript.
    const resumeScript = writeScript(dir, [{ text: 'five' }], 'resume.json');
    const resumed = await runCli(
      [
        ...['-p', 'fifth', '--resume', file!, '--model', 'scripted', '--script', resumeScript, '--cwd', dir],
        ...['--output-format', 'stream-json', '--verbose'],
      ],
      { timeoutMs: 15_000 },
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    const out = parseLines(resumed.stdout);
    assert.equal(out.at(-1)!.result, 'five');
    assert.equal(out.at(-1)!.session_id, sessionId);
  } catch (error) {
    console.error(worker.stderr(), front.stderr());
    throw error;
  } finally {
    raw.disconnect();
    await log.close();
    await kill9(front);
    await kill9(worker);
  }
});
