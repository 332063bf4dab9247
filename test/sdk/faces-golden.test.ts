/**
 * Golden tests of each face for the one scripted session (text, thinking, tools, plan,
 * subagent, denied tool, failing tool, model error). UPDATE_GOLDEN=1 rewrites the files.
 */
import { test } from 'node:test';
import { SessionEventProjector, toAcpUpdates, Agent, type LifecycleEvent } from '../../src/index.ts';
import { assertGolden, keyFields, normalize, runScripted } from './collect.ts';
import { PROMPTS, scriptedOptions } from './scripted-session.ts';

test('golden: the query() message stream', async () => {
  const { messages, cwd } = await runScripted();
  assertGolden('query-messages', normalize(messages.map(keyFields), cwd));
});

for (const partial of [false, true]) {
  test(`golden: ACP session updates (partial messages: ${partial})`, async () => {
    const { messages, cwd } = await runScripted({ includePartialMessages: partial });
    assertGolden(`acp-updates${partial ? '-partial' : ''}`, normalize(toAcpUpdates(messages), cwd));
  });

  test(`golden: Copilot-style session events (partial messages: ${partial})`, async () => {
    // user.message comes from the prompt echoes on the stream.
    const { messages, cwd } = await runScripted({ includePartialMessages: partial, replayUserMessages: true });
    const projector = new SessionEventProjector();
    const events = messages
      .flatMap((m) => projector.push(m))
      .map(({ id, parentId, timestamp: _, ...rest }) => ({ id, parentId, ...rest }));
    assertGolden(`session-events${partial ? '-partial' : ''}`, normalize(events, cwd));
  });
}

test('golden: Agent lifecycle of two runs, a command, pause, resume and kill', async () => {
  const { cwd, ...options } = scriptedOptions();
  const agent = new Agent({ ...options });
  const events: LifecycleEvent[] = [];
  agent.on('lifecycle', (e: LifecycleEvent) => events.push(e));
  await agent.run({ prompt: PROMPTS[0] });
  await agent.executeCommand('echo ok');
  await agent.pause();
  await agent.run({ prompt: PROMPTS[1] });
  const sandbox = agent.sandbox!;
  await agent.kill();
  assertGolden(
    'lifecycle',
    normalize(
      events.map(({ timestamp: _, ...rest }) => rest),
      sandbox,
    ),
  );
  void cwd;
});
