import assert from 'node:assert/strict';
import test from 'node:test';
import { currentModel, fallBack } from '../../src/agent/fallback.ts';
import type { RunState } from '../../src/agent/loop.ts';
import type { AgentMessage } from '../../src/messages/types.ts';
import { ModelError } from '../../src/model/errors.ts';

const overloaded = () => new ModelError({ message: 'Overloaded', kind: 'overloaded', status: 529 });

function session(model: string, fallbackModels?: string[]) {
  const emitted: AgentMessage[] = [];
  const ctx = {
    model,
    fallbackModels,
    sessionId: 's1',
    emit: (message: AgentMessage) => {
      emitted.push(message);
      return undefined;
    },
  };
  return { ctx, emitted, run: {} as Pick<RunState, 'fallback'> };
}

test('a fallback is the prompt’s state: the session’s model is untouched, the next prompt uses it again', async () => {
  const { ctx, emitted, run } = session('primary', ['second', 'third']);
  assert.equal(await fallBack(ctx, overloaded(), run), true);
  assert.equal(ctx.model, 'primary');
  assert.equal(currentModel(ctx, run), 'second');
  assert.deepEqual(
    emitted.map((m) => m.type === 'system' && m.subtype === 'model_fallback' && [m.original_model, m.fallback_model]),
    [['primary', 'second']],
  );
  // The next fallback goes on from the model now in use, and still names the session's model as replaced.
  assert.equal(await fallBack(ctx, overloaded(), run), true);
  assert.deepEqual(run.fallback, { from: 'primary', to: 'third' });
  assert.equal(currentModel(ctx, run), 'third');
  // The list is used up: no more switches.
  assert.equal(await fallBack(ctx, overloaded(), run), false);
  // A new prompt starts from a fresh run state.
  assert.equal(currentModel(ctx, {}), 'primary');
});

test('set_model during the prompt wins over an earlier fallback', async () => {
  const { ctx, run } = session('primary', ['second']);
  await fallBack(ctx, overloaded(), run);
  ctx.model = 'chosen';
  assert.equal(currentModel(ctx, run), 'chosen');
});

test('no fallback for other failures or without fallback models', async () => {
  const plain = session('primary');
  assert.equal(await fallBack(plain.ctx, overloaded(), plain.run), false);
  const other = session('primary', ['second']);
  const denied = new ModelError({ message: 'bad request', kind: 'invalid_request', status: 400 });
  assert.equal(await fallBack(other.ctx, denied, other.run), false);
  assert.equal(await fallBack(other.ctx, undefined, other.run), false);
  assert.equal(currentModel(other.ctx, other.run), 'primary');
});
