/**
 * The waterfall's layout (web/src/model/waterfall.ts) on streams whose times are known: a prompt's start from the
 * result's duration, a request from the agent's previous event, a subagent from its prompt, a failed call, a call
 * never answered (drawn to the prompt's end, open), and a stream without timestamps (no waterfall).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timingRecord, waterfall, type Bar, type TimingRecord } from '../../web/src/model/waterfall.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const assistant = (ms: number, id: string, uses: string[] = [], parent: string | null = null) => ({
  type: 'assistant',
  parent_tool_use_id: parent,
  timestamp: at(ms),
  message: {
    id,
    model: 'm',
    content: uses.map((use) => ({ type: 'tool_use', id: use, name: use.split('_')[0], input: {} })),
  },
});
const results = (ms: number, ids: Array<[string, boolean]>, parent: string | null = null) => ({
  type: 'user',
  parent_tool_use_id: parent,
  timestamp: at(ms),
  message: { content: ids.map(([id, failed]) => ({ type: 'tool_result', tool_use_id: id, is_error: failed })) },
});
const records = (messages: Array<Record<string, unknown>>): TimingRecord[] =>
  messages.flatMap((m) => {
    const r = timingRecord(m);
    return r ? [r] : [];
  });
const flat = (bar: Bar, depth = 0): string[] => {
  const marks = `${bar.open ? ' open' : ''}${bar.failed ? ' failed' : ''}`;
  const line = `${depth} ${bar.kind} ${bar.label} ${bar.start - T0}-${bar.end - T0}${marks}`;
  return [line, ...bar.children.flatMap((c) => flat(c, depth + 1))];
};

test('waterfall: requests, calls and a subagent laid out from the stream’s times', () => {
  const bar = waterfall(
    records([
      { type: 'system', subtype: 'init' },
      assistant(100, 'msg_1', ['Bash_1', 'Task_1']),
      results(400, [['Bash_1', true]]),
      { type: 'user', parent_tool_use_id: 'Task_1', timestamp: at(420), message: { content: 'sub prompt' } },
      assistant(500, 'msg_sub', [], 'Task_1'),
      results(520, [['Task_1', false]]),
      assistant(600, 'msg_2'),
      { type: 'result', duration_ms: 650, is_error: false },
    ]),
    'Prompt 1',
    'p1',
  )!;
  assert.deepEqual(flat(bar), [
    '0 prompt Prompt 1 -50-600',
    '1 model chat m -50-100',
    '1 tool Bash 100-400 failed',
    '1 tool Task 100-520',
    '2 model chat m 420-500',
    '1 model chat m 520-600',
  ]);
});

test('waterfall: a call never answered runs open to the prompt’s end; no timestamps, no waterfall', () => {
  const bar = waterfall(records([assistant(0, 'msg_1', ['Read_1']), assistant(30, 'msg_1')]), 'Prompt 1', 'p1')!;
  assert.deepEqual(flat(bar), ['0 prompt Prompt 1 0-30 open', '1 model chat m 0-30', '1 tool Read 0-30 open']);
  const untimed = [
    { type: 'assistant', message: { id: 'x', content: [] } },
    { type: 'result', duration_ms: 5 },
  ];
  assert.equal(waterfall(records(untimed), 'Prompt 1', 'p1'), undefined);
});
