/** Agent: sandbox folder, executeCommand streaming, lifecycle reasons, pause/resume/kill, stdout/event. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent, LIFECYCLE_REASONS, type LifecycleEvent, type SessionEvent } from '../../src/index.ts';
import { scratchDir } from '../helpers/temp.ts';

/** Transcripts of in-process sessions go to a throwaway folder, never the user's ~/.agentpipe. */
process.env.AGENTPIPE_HOME ??= scratchDir('agentpipe-home-');

const slow = {
  model: 'scripted',
  script: {
    turns: [
      { text: 'x'.repeat(400), delay_ms: 20, chunk_size: 1 },
      { text: 'second' },
      { text: 'third', delay_ms: 30, chunk_size: 1 },
    ],
  },
};

function record(agent: Agent) {
  const lifecycle: LifecycleEvent[] = [];
  const stdout: string[] = [];
  const events: SessionEvent[] = [];
  agent.on('lifecycle', (e: LifecycleEvent) => lifecycle.push(e));
  agent.on('stdout', (chunk: string) => stdout.push(chunk));
  agent.on('event', (e: SessionEvent) => events.push(e));
  return { lifecycle, stdout, events, reasons: () => lifecycle.map((e) => e.reason) };
}

test('executeCommand streams output as it comes, in the sandbox folder, and reports the exit code', async () => {
  const agent = new Agent({ model: 'scripted' });
  const seen = record(agent);
  // The command prints "two" only once this test has seen "one": output that were not streamed would never end.
  let released: Promise<void> | undefined;
  agent.on('stdout', (chunk: string) => {
    if (chunk.startsWith('one\n')) released ??= writeFile(path.join(agent.sandbox!, 'go'), 'go\n');
  });
  const result = await agent.executeCommand(
    'mkfifo go; echo one; read x < go; rm go; echo two; pwd; echo oops >&2; exit 3',
  );
  await released;
  assert.equal(result.exitCode, 3);
  assert.equal(result.stdout, `one\ntwo\n${agent.sandbox}\n`);
  assert.equal(result.stderr, 'oops\n');
  assert.deepEqual(seen.reasons(), ['sandbox_boot', 'sandbox_ready', 'command_start', 'command_failed']);
  const timed = await agent.executeCommand('sleep 5', { timeoutMs: 200 });
  assert.equal(timed.timedOut, true);
  assert.equal(seen.reasons().at(-1), 'command_failed');
  const folder = agent.sandbox!;
  assert.ok(folder.startsWith(os.tmpdir()) && existsSync(folder));
  await agent.kill();
  assert.equal(existsSync(folder), false, 'a sandbox agentpipe made is removed on kill');
  assert.equal(seen.reasons().at(-1), 'sandbox_killed');
});

test('Agent: stdout carries raw stream-json lines, event the session events; interrupt ends a run as run_interrupted', async () => {
  const cwd = scratchDir('agentpipe-user-');
  const agent = new Agent({ ...slow, cwd, includePartialMessages: true });
  const seen = record(agent);
  const streaming = new Promise<void>((resolve) =>
    agent.on('event', (e: SessionEvent) => e.type === 'assistant.message_delta' && resolve()),
  );
  const running = agent.run({ prompt: 'write a lot' });
  await streaming;
  await agent.interrupt();
  const { result } = await running;
  assert.equal(result.terminal_reason, 'aborted_streaming');
  assert.deepEqual(seen.reasons(), ['sandbox_connected', 'run_start', 'run_interrupted']);
  const lines = seen.stdout
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.equal(lines[0].type, 'system');
  assert.equal(lines.at(-1).type, 'result');
  assert.deepEqual(
    seen.events
      .filter((e) => e.type === 'abort' || e.type === 'session.idle' || e.type === 'user.message')
      .map((e) => e.type),
    ['user.message', 'abort', 'session.idle'],
  );
  const second = await agent.run({ prompt: 'again' });
  assert.equal(second.text, 'second', 'the conversation goes on in the same session');
  assert.equal(second.sessionId, result.session_id);
  await agent.kill();
  assert.ok(existsSync(cwd), "the user's own folder is kept on kill");
});

test('Agent: pause interrupts and keeps the folder, run resumes; timeouts, background runs and commands', async () => {
  const agent = new Agent(slow);
  const seen = record(agent);
  const running = agent.run({ prompt: 'long' });
  await new Promise((r) => setTimeout(r, 100));
  await agent.pause();
  await running;
  const folder = agent.sandbox!;
  assert.ok(existsSync(folder));
  assert.equal(seen.lifecycle.at(-1)!.sandbox, 'paused');
  const bg = await agent.run({ prompt: 'bg', background: true });
  assert.equal((await bg.done).text, 'second');
  const timed = await agent.run({ prompt: 'slow', timeoutMs: 50 });
  assert.equal(timed.timedOut, true);
  const cmd = await agent.executeCommand('exit 1', { background: true });
  assert.equal((await cmd.done).exitCode, 1);
  const ok = await agent.executeCommand('true', { background: true });
  await ok.done;
  const sleeper = agent.executeCommand('sleep 5');
  await new Promise((r) => setTimeout(r, 100));
  await agent.interrupt();
  assert.equal((await sleeper).interrupted, true);
  await assert.rejects(agent.run({ prompt: '' }), /non-empty string/);
  await agent.kill();
  const bad = new Agent({ cwd: '/no/such/folder/anywhere' });
  const badSeen = record(bad);
  await assert.rejects(bad.run({ prompt: 'x' }), /does not exist/);
  const reasons = new Set([...seen.reasons(), ...badSeen.reasons()]);
  for (const reason of [
    'sandbox_pause',
    'sandbox_resume',
    'run_interrupted',
    'run_background_complete',
    'run_failed',
    'command_background_failed',
    'command_background_complete',
    'command_interrupted',
    'sandbox_killed',
    'sandbox_error',
  ]) {
    assert.ok(reasons.has(reason as never), `missing ${reason}`);
  }
  assert.equal(LIFECYCLE_REASONS.length, 19);
});
