/**
 * Forks: `--replay-until <uuid>` replays the recorded session up to that message, then goes on live with the model the
 * command line names (here the scripted model); the fork is a session of its own that the official Claude Agent SDK
 * resumes with its history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { runCli, parseLines } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { writeScript } from '../helpers/workspace.ts';
import { sdkOptions } from '../sdk/helpers.ts';
import { recordSession, SESSION_FLAGS, startFolder } from './scenario.ts';

/** The message without what makes the fork a session of its own: its session id, and its folder. */
const asSeen = (message: Record<string, any>, cwd: string): unknown =>
  JSON.parse(JSON.stringify({ ...message, session_id: '<session>' }).replaceAll(cwd, '<cwd>'));

test('--replay-until after the third message, then the scripted model: three identical messages, then the script; the official SDK resumes the fork', async () => {
  const recording = await recordSession();
  assert.equal(recording.run.code, 0, recording.run.stderr);
  const third = recording.lines[2]!;
  assert.equal(third.type, 'assistant');
  assert.equal(third.message.content[0].name, 'Read', 'the third message is the Read call');

  const folder = startFolder();
  const script = writeScript(scratchDir('fork-script-'), [{ text: 'Forked: the notes have two lines.' }]);
  const fork = await runCli(
    [
      ...SESSION_FLAGS,
      '--replay',
      recording.tape,
      '--replay-until',
      third.uuid,
      '--model',
      'scripted',
      '--script',
      script,
    ],
    { cwd: folder, env: { ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' } },
  );
  assert.equal(fork.code, 0, fork.stderr);
  const lines = parseLines(fork.stdout);
  assert.deepEqual(
    lines.slice(0, 3).map((m) => asSeen(m, folder)),
    recording.lines.slice(0, 3).map((m) => asSeen(m, recording.cwd)),
    'uuids, ids and every other field as recorded',
  );
  const forkId = lines[0]!.session_id as string;
  assert.notEqual(forkId, recording.lines[0]!.session_id, 'the fork is a session of its own');
  // The rest: the Read ran (live), then the script's answer instead of the recorded Edit.
  assert.deepEqual(
    lines.slice(3).map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type)),
    ['user', 'assistant', 'result'],
  );
  assert.match(JSON.stringify(lines[3]!.message.content), /alpha\\n2\\tbeta/);
  assert.equal(lines[4]!.message.content[0].text, 'Forked: the notes have two lines.');
  assert.equal(lines[5]!.result, 'Forked: the notes have two lines.');
  assert.ok(lines.slice(3).every((m) => m.session_id === forkId));
  assert.equal(readFileSync(path.join(folder, 'notes.txt'), 'utf8'), 'alpha\nbeta\n', 'the recorded Edit never ran');
  assert.match(fork.stderr, /fork point .* passed/);

  // The official SDK resumes the fork: its model request carries the fork's history.
  const resumeTape = path.join(scratchDir('fork-resume-'), 'resume.tape.jsonl');
  const options = sdkOptions([{ text: 'Resumed.' }]);
  const messages: SDKMessage[] = [];
  for await (const message of query({
    prompt: 'What did you find?',
    options: {
      ...options,
      cwd: folder,
      resume: forkId,
      extraArgs: { ...options.extraArgs, record: resumeTape, 'setting-sources': '' },
    },
  }))
    messages.push(message);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success', options.stderrText());
  assert.equal(result.result, 'Resumed.');
  assert.equal(result.session_id, forkId);
  const request = readFileSync(resumeTape, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; request?: { messages: unknown[] } })
    .find((line) => line.type === 'model_request')!.request!;
  const history = JSON.stringify(request.messages);
  for (const part of ['Tidy notes.txt', 'toolu_01read', '2\\tbeta', 'Forked: the notes have two lines.'])
    assert.ok(history.includes(part), `the resumed history holds ${part}`);
  assert.match(JSON.stringify(request.messages.at(-1)), /What did you find\?/, 'then the new prompt');
});
