/**
 * The request's view of the history, kept between requests, is always the history joined from
 * scratch: seeded random edits (messages added, a compaction replacing the head, a history
 * emptied and rebuilt) against a plain join of the whole history after each edit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeConsecutive } from '../../src/agent/merged-history.ts';
import type { MessageParam } from '../../src/messages/types.ts';
import { random } from '../faults/engine.ts';

/** The join as a request needs it, done from scratch each time. */
function joined(history: MessageParam[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const m of history) {
    const content =
      typeof m.content === 'string'
        ? m.content
        : m.content.map((b) => (b.type === 'text' ? { type: 'text' as const, text: b.text } : b));
    const last = out.at(-1);
    const blocks = (c: MessageParam['content']) => (typeof c === 'string' ? [{ type: 'text' as const, text: c }] : c);
    if (last && last.role === m.role)
      out[out.length - 1] = { role: m.role, content: [...blocks(last.content), ...blocks(content)] };
    else out.push({ role: m.role, content });
  }
  return out;
}

test('the kept view equals a join from scratch through 2,000 seeded edits of one history', () => {
  const rnd = random(28);
  const history: MessageParam[] = [];
  let n = 0;
  const message = (): MessageParam => {
    const role = rnd() < 0.5 ? 'user' : 'assistant';
    const text = `m${n++}`;
    if (rnd() < 0.3) return { role, content: text };
    return { role, content: [{ type: 'text', text, citations: null } as never] };
  };
  for (let step = 0; step < 2000; step++) {
    const r = rnd();
    if (r < 0.8) history.push(message());
    else if (r < 0.9 && history.length > 2) {
      // A compaction: the head replaced by one summary.
      history.splice(0, Math.floor(rnd() * history.length), { role: 'user', content: `summary ${n++}` });
    } else if (r < 0.95) history.splice(Math.floor(rnd() * history.length), 1, message());
    else history.length = Math.floor(rnd() * history.length);
    const view = mergeConsecutive(history);
    assert.deepEqual(view, joined(history), `after step ${step}`);
    // Each request gets its own array: changing it leaves the next one alone.
    view.push({ role: 'user', content: 'not in the history' });
  }
});
