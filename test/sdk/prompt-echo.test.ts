/**
 * The prompt on the stream: the session emits each prompt's echo (`user` with `isReplay`) after
 * that prompt's `system/init`; query() yields it only with `replayUserMessages` (both engines);
 * the faces project it (session events: user.message; ACP: user_message_chunk only when prompts
 * are shown, never during a live prompt).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AcpUpdateProjector,
  Agent,
  SessionEventProjector,
  query,
  type AgentMessage,
  type QueryOptions,
  type SessionEvent,
} from '../../src/index.ts';
import type { PromptMessage } from '../../src/sdk/types.ts';
import { CLI_PATH } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const U1 = '11111111-1111-4111-8111-111111111111';

function options(extra: Partial<QueryOptions> = {}): QueryOptions {
  const cwd = tempDir();
  return {
    model: 'scripted',
    script: writeScript(cwd, [{ text: 'first answer' }, { text: 'second answer' }]),
    cwd,
    persistSession: false,
    ...extra,
  };
}

/** Two prompts, the second sent after the first result (the first with a uuid, the second with content blocks). */
async function twoPrompts(opts: QueryOptions): Promise<AgentMessage[]> {
  let release!: () => void;
  const firstDone = new Promise<void>((resolve) => (release = resolve));
  async function* input(): AsyncGenerator<PromptMessage> {
    yield { type: 'user', message: { role: 'user', content: 'one' }, parent_tool_use_id: null, uuid: U1 };
    await firstDone;
    yield { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'two' }] } };
  }
  const messages: AgentMessage[] = [];
  for await (const message of query({ prompt: input(), options: opts })) {
    messages.push(message);
    if (message.type === 'result') release();
  }
  return messages;
}

const label = (m: AgentMessage) =>
  m.type === 'system' ? `system/${m.subtype}` : m.type === 'user' && m.isReplay ? 'echo' : m.type;

for (const engine of ['in-process', 'child process'] as const) {
  const extra = engine === 'child process' ? { executable: CLI_PATH } : {};

  test(`query() (${engine}): no prompt echo unless replayUserMessages; with it, one after each prompt's system/init`, async () => {
    const plain = await twoPrompts(options(extra));
    assert.deepEqual(plain.map(label), ['system/init', 'assistant', 'result', 'system/init', 'assistant', 'result']);

    const echoed = await twoPrompts(options({ ...extra, replayUserMessages: true }));
    assert.deepEqual(echoed.map(label), [
      'system/init',
      'echo',
      'assistant',
      'result',
      'system/init',
      'echo',
      'assistant',
      'result',
    ]);
    const [first, second] = echoed.filter((m) => m.type === 'user');
    const sessionId = echoed[0].session_id;
    // Claude Code's shape: the message as sent, the session, the client's uuid (or a fresh one), the time.
    assert.deepEqual(
      { ...first, timestamp: typeof first.timestamp },
      {
        type: 'user',
        message: { role: 'user', content: 'one' },
        session_id: sessionId,
        parent_tool_use_id: null,
        uuid: U1,
        timestamp: 'string',
        isReplay: true,
      },
    );
    assert.deepEqual(second.message.content, [{ type: 'text', text: 'two' }]);
    assert.match(second.uuid, /^[0-9a-f-]{36}$/);
    assert.notEqual(second.uuid, U1);
  });
}

test('Agent: event has user.message after each run’s session.start / init; content and the raw stream do not repeat the prompt', async () => {
  const { cwd, ...opts } = options();
  const agent = new Agent({ ...opts, cwd });
  const events: SessionEvent[] = [];
  const content: Array<{ update: { sessionUpdate: string } }> = [];
  const raw: AgentMessage[] = [];
  agent.on('event', (e: SessionEvent) => events.push(e));
  agent.on('content', (c: { update: { sessionUpdate: string } }) => content.push(c));
  agent.on('message', (m: AgentMessage) => raw.push(m));
  await agent.run({ prompt: 'first prompt' });
  await agent.run({ prompt: 'second prompt' });
  await agent.kill();
  const outline = events
    .filter((e) => ['session.start', 'user.message', 'assistant.message', 'session.idle'].includes(e.type))
    .map((e) => (e.type === 'user.message' ? `user: ${e.data.content}` : e.type));
  assert.deepEqual(outline, [
    'session.start',
    'user: first prompt',
    'assistant.message',
    'session.idle',
    'user: second prompt',
    'assistant.message',
    'session.idle',
  ]);
  assert.equal(content.filter((c) => c.update.sessionUpdate === 'user_message_chunk').length, 0);
  assert.equal(raw.filter((m) => m.type === 'user' && m.isReplay).length, 0);
});

const init = (sessionId: string): AgentMessage =>
  ({
    type: 'system',
    subtype: 'init',
    cwd: '/w',
    session_id: sessionId,
    tools: [],
    mcp_servers: [],
    model: 'scripted',
    permissionMode: 'default',
    slash_commands: [],
    apiKeySource: 'none',
    claude_code_version: '0',
    agentpipe_version: '0',
    output_style: 'default',
    agents: [],
    skills: [],
    plugins: [],
    uuid: '33333333-3333-4333-8333-333333333333',
  }) as AgentMessage;
const echo = (text: string): AgentMessage & { type: 'user' } => ({
  type: 'user',
  message: { role: 'user', content: text },
  session_id: 's',
  parent_tool_use_id: null,
  uuid: U1,
  isReplay: true,
});

test('SessionEventProjector: an echo before the first system/init (a repeated uuid, echoed when read) follows session.start', () => {
  const projector = new SessionEventProjector();
  const types = [echo('early'), init('s'), echo('late')].flatMap((m) =>
    projector.push(m).map((e) => (e.type === 'user.message' ? `user: ${e.data.content}` : e.type)),
  );
  assert.deepEqual(types, ['session.start', 'user: early', 'user: late']);
});

test('AcpUpdateProjector: the echo is a user_message_chunk when prompts are shown (session/load), nothing in a live prompt', () => {
  const shown = new AcpUpdateProjector().push(echo('hello'));
  assert.deepEqual(shown, [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hello' } }]);
  assert.deepEqual(new AcpUpdateProjector({ showPrompts: false }).push(echo('hello')), []);
  // Other user text of the conversation is shown either way.
  const { isReplay: _, ...other } = echo('said later');
  assert.equal(new AcpUpdateProjector({ showPrompts: false }).push(other).length, 1);
});
