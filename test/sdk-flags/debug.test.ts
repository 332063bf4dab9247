/** `--debug [filter]` and `--debug-file`: request summaries, retries, tool calls and control requests, never keys. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines } from '../helpers/cli.ts';
import { CLAUDE, KEY, STREAM_IN, anthropic, place, run, text, toolCall } from '../session/helpers.ts';

const INPUT =
  [
    { type: 'control_request', request_id: 'init_1', request: { subtype: 'initialize' } },
    { type: 'user', message: { role: 'user', content: 'look' }, parent_tool_use_id: null, session_id: '' },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n') + '\n';

test('--debug-file gets one line per request, retry, tool call and control request, and no key', async () => {
  const p = place();
  const server = await anthropic([
    {
      kind: 'json',
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      headers: { 'retry-after': '0' },
    },
    toolCall('toolu_1', 'Glob', { pattern: '*.md' }),
    text('done'),
  ]);
  const file = path.join(p.home, 'logs', 'debug.log');
  const { stdout, stderr, code } = await run(p, [...STREAM_IN, ...CLAUDE, '--debug-file', file], {
    stdin: INPUT,
    env: server.env,
  });
  assert.equal(code, 0);
  assert.equal(parseLines(stdout).at(-1)!.subtype, 'success');
  assert.doesNotMatch(stderr, /\[DEBUG\]/, 'the lines go to the file, not stderr');
  const log = readFileSync(file, 'utf8');
  assert.match(log, /\[DEBUG\] \[control\] request initialize \(init_1\)/);
  assert.match(log, /\[api\] request: model claude-sonnet-4-5, 1 messages, tools \[Task, Bash, Edit, Glob/);
  assert.match(log, /\[api\] retry 1\/10 in 0 ms after overloaded \(status 529\)/);
  assert.match(log, /\[tools\] call Glob \(toolu_1\)/);
  assert.match(log, /\[tools\] Glob \(toolu_1\) done in \d+ ms/);
  assert.match(log, /\[api\] request: model claude-sonnet-4-5, 3 messages/);
  assert.ok(!log.includes(KEY), 'the API key never appears');
});

test('--debug with a filter writes the chosen categories to stderr', async () => {
  const p = place();
  const server = await anthropic([toolCall('toolu_1', 'Glob', { pattern: '*.md' }), text('done')]);
  const { stderr, code } = await run(p, [...STREAM_IN, ...CLAUDE, '--debug', 'api,control'], {
    stdin: INPUT,
    env: server.env,
  });
  assert.equal(code, 0);
  assert.match(stderr, /\[DEBUG\] \[api\] request: model claude-sonnet-4-5/);
  assert.match(stderr, /\[DEBUG\] \[control\] request initialize/);
  assert.doesNotMatch(stderr, /\[tools\]/);
  assert.ok(!stderr.includes(KEY));
});

test('--debug !tools drops that category', async () => {
  const p = place();
  const server = await anthropic([toolCall('toolu_1', 'Glob', { pattern: '*.md' }), text('done')]);
  const { stderr } = await run(p, [...STREAM_IN, ...CLAUDE, '--debug=!tools'], { stdin: INPUT, env: server.env });
  assert.match(stderr, /\[api\] request/);
  assert.doesNotMatch(stderr, /\[tools\]/);
});

test('library: the debug lines go to the stderr option, never to process.stderr', async () => {
  const { query } = await import('../../src/index.ts');
  const p = place();
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  let leaked = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    leaked += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    const options = {
      model: 'scripted',
      cwd: p.cwd,
      env: { ...process.env, ...p.env },
      debug: 'api',
      stderr: (line: string) => lines.push(line),
    };
    for await (const message of query({ prompt: 'hi', options })) void message;
  } finally {
    process.stderr.write = write;
  }
  assert.ok(
    lines.some((line) => /\[DEBUG\] \[api\] request: model scripted/.test(line)),
    lines.join(''),
  );
  assert.doesNotMatch(leaked, /\[DEBUG\]/);
});
