import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { place, prompts, run, STREAM_IN } from './helpers.ts';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';

test('duplicate user uuids run once, also across a resume; --replay-user-messages echoes each with isReplay', async () => {
  const p = place();
  const script = writeScript(p.cwd, [{ text: 'ran 1' }, { text: 'ran 2' }, { text: 'ran 3' }]);
  const first = await run(p, [...STREAM_IN, '--script', script, '--replay-user-messages'], {
    stdin: prompts({ text: 'one', uuid: U1 }, { text: 'one again', uuid: U1 }),
  });
  assert.equal(first.code, 0, first.stderr);
  const lines = parseLines(first.stdout);
  const id = lines.find((l) => l.type === 'system')!.session_id;
  const replays = lines.filter((l) => l.type === 'user' && l.isReplay);
  assert.equal(replays.length, 2, 'new and duplicate messages are both echoed');
  for (const r of replays) {
    assert.equal(r.uuid, U1);
    assert.equal(r.session_id, id);
  }
  assert.equal(lines.filter((l) => l.type === 'result').length, 1, 'the duplicate did not run');

  const resumed = await run(p, [...STREAM_IN, '--script', script, '--replay-user-messages', '--resume', id], {
    stdin: prompts({ text: 'one, third time', uuid: U1 }, { text: 'two', uuid: U2 }),
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  const out = parseLines(resumed.stdout);
  const results = out.filter((l) => l.type === 'result');
  assert.equal(results.length, 1, 'the uuid processed before the resume is not run again');
  assert.equal(results[0].result, 'ran 1', 'the script restarts from its first turn in a new process');
  const echoed = out.filter((l) => l.type === 'user' && l.isReplay);
  assert.deepEqual(
    echoed.map((l) => [l.uuid, l.session_id, l.message.content]),
    [
      [U1, id, 'one, third time'],
      [U2, id, 'two'],
    ],
  );
  assert.match(resumed.stderr, new RegExp(`${U1} was already processed`));
});
