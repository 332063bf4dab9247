/**
 * flagsFromOptions: the session options as the CLI flags of the same names, in the table's order; a script object
 * goes to a private temp file; options that cannot cross a process are refused before any file is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { flagsFromOptions } from '../../src/sdk/cli-flags.ts';

test('cli-flags: options map onto flags in order; lists, JSON, thinking and tapes', () => {
  const { args, tempFiles } = flagsFromOptions({
    harness: 'codex',
    cwd: '/w',
    maxTurns: 3,
    allowedTools: ['Read', 'Bash(ls)'],
    tools: ['Read', 'Grep'],
    permissionMode: 'plan',
    includePartialMessages: true,
    mcpServers: { a: { command: 'x' } },
    agents: {},
    persistSession: false,
    thinking: { type: 'enabled', budgetTokens: 100 },
    betas: ['b1', 'b2'],
    additionalDirectories: ['a', 'b'],
    trustProject: false,
    debug: 'api',
    record: 'tape.json',
    telemetry: { content: true },
  });
  assert.deepEqual(tempFiles, []);
  // No display: --thinking-display is left out; no setting sources: the CLI reads none.
  const expected = [
    ['--harness', 'codex'],
    ['--cwd', '/w'],
    ['--max-turns', '3'],
    ['--allowed-tools', 'Read', 'Bash(ls)'],
    ['--tools', 'Read,Grep'],
    ['--permission-mode', 'plan'],
    ['--include-partial-messages'],
    ['--mcp-config', '{"mcpServers":{"a":{"command":"x"}}}'],
    ['--no-session-persistence'],
    ['--thinking', 'enabled', '--max-thinking-tokens', '100'],
    ['--betas', 'b1,b2'],
    ['--add-dir', 'a', '--add-dir', 'b'],
    ['--setting-sources', ''],
    ['--no-trust-project'],
    ['--debug', 'api'],
    ['--record', path.resolve('/w', 'tape.json')],
    ['--otel', '--otel-content'],
  ];
  assert.deepEqual(args, expected.flat());
});

test('cli-flags: a script object is written to a private temp file; a path is resolved', () => {
  const { args, tempFiles } = flagsFromOptions({ script: { turns: [{ text: 'hi' }] } });
  try {
    assert.equal(tempFiles.length, 1);
    assert.deepEqual(args.slice(0, 2), ['--script', tempFiles[0]]);
    assert.deepEqual(JSON.parse(readFileSync(tempFiles[0]!, 'utf8')), { turns: [{ text: 'hi' }] });
    assert.equal(statSync(tempFiles[0]!).mode & 0o077, 0);
  } finally {
    for (const file of tempFiles) rmSync(file, { force: true });
  }
  assert.deepEqual(flagsFromOptions({ script: 's.json' }).args.slice(0, 2), ['--script', path.resolve('s.json')]);
});

test('cli-flags: in-process-only options are refused before a script file is written', () => {
  assert.throws(() => flagsFromOptions({ hooks: {} }), /option "hooks" holds functions/);
  assert.throws(
    () => flagsFromOptions({ script: { turns: [{ text: 'x' }] }, telemetry: { tracerProvider: {} as never } }),
    /tracerProvider and meterProvider work in-process only/,
  );
});
