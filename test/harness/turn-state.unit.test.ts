/**
 * What a translator does with an event it does not know: counted, said once per kind on stderr
 * and in the stream (a system/informational warning), after system/init and before what follows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentMessage } from '../../src/messages/types.ts';
import { turnState } from '../helpers/turn-state.ts';

const shape = (m: AgentMessage) => (m.type === 'system' ? `system/${m.subtype}` : m.type);

test('an unknown event before system/init is told right after it; each kind once, every one counted', async () => {
  const { state, stream, warnings } = turnState();
  state.unknown('event type thread.teleported');
  state.unknown('event type thread.teleported');
  state.unknown('item type hologram', 'a detail');
  assert.equal(stream.length, 0, 'nothing before system/init');
  await state.init({ model: 'gpt-x' });
  state.unknown('event type thread.teleported');
  await state.emit(state.toolResult('call-1', 'ok', false));
  assert.deepEqual(stream.map(shape), ['system/init', 'system/informational', 'system/informational', 'user']);
  const notices = stream.filter((m) => m.type === 'system' && m.subtype === 'informational');
  assert.deepEqual(
    notices.map((m) => (m.type === 'system' && m.subtype === 'informational' ? [m.level, m.content] : [])),
    [
      ['warning', 'harness codex: ignored an unknown event type thread.teleported'],
      ['warning', 'harness codex: ignored an unknown item type hologram (a detail)'],
    ],
  );
  assert.ok(notices.every((m) => m.session_id === 'session-1' && typeof m.uuid === 'string'));
  assert.deepEqual(
    warnings,
    notices.map((m) => (m.type === 'system' && m.subtype === 'informational' ? m.content : '')),
  );
  assert.deepEqual(
    [...state.unknownCounts],
    [
      ['event type thread.teleported', 3],
      ['item type hologram', 1],
    ],
  );
});

test('an unknown event after system/init enters the stream at once, before the next message', async () => {
  const { state, stream } = turnState();
  await state.init();
  state.unknown('event type late');
  assert.deepEqual(stream.map(shape), ['system/init', 'system/informational']);
  await state.emit(state.toolResult('call-1', 'ok', false));
  assert.deepEqual(stream.map(shape), ['system/init', 'system/informational', 'user']);
});
