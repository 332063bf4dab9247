/**
 * A run that cannot start still ends its prompt with exactly one `result`, last, through the real CLI: in json and
 * stream-json every set-up error (a flag, a settings file, an MCP config, a model, a wrapped CLI, a key) is an
 * is_error result on stdout besides its one line on stderr, exit 1; in text mode the stderr line is all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseLines, runCli, type RunResult } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';

const SESSION = '5f0c3a52-8d0e-4f8e-9a36-1b2c3d4e5f60';

/** Each set-up error: its flags and the line that names it. */
function cases(dir: string): Array<[string, string[], RegExp]> {
  return [
    ['a missing --settings file', ['--settings', path.join(dir, 'none.json')], /--settings .*none\.json: no such file/],
    ['a malformed --settings file', ['--settings', path.join(dir, 'broken.json')], /broken\.json/],
    ['a bad --mcp-config', ['--mcp-config', '{bad'], /^--mcp-config: invalid JSON/],
    ['an unknown model', ['--model', 'scriptd'], /^unknown model 'scriptd' \(did you mean scripted\?/],
    ['a non-Claude model', ['--model', 'gpt-4o'], /^gpt-4o is not a Claude model: give --base-url/],
    ['a --harness CLI not installed', ['--harness', 'gemini'], /^--harness gemini: the gemini CLI is not on PATH/],
    ['a --cwd that does not exist', ['--cwd', path.join(dir, 'nowhere')], /^--cwd .*nowhere: no such folder/],
  ];
}

/** The stream's one result, last, for a run that could not start; its error matches `pattern`. */
function assertOneResult(lines: Array<Record<string, any>>, pattern: RegExp, label: string) {
  const results = lines.filter((l) => l.type === 'result');
  assert.equal(results.length, 1, `${label}: one result`);
  const result = lines.at(-1)!;
  assert.equal(result.type, 'result', `${label}: the result is last`);
  assert.equal(result.is_error, true, label);
  assert.equal(result.subtype, 'error_during_execution', label);
  assert.equal(result.num_turns, 0, label);
  assert.equal(result.errors.length, 1, label);
  assert.match(result.errors[0], pattern, label);
  return result;
}

/** One line on stderr naming the error, no stack trace, exit 1. */
function assertOneLine(run: RunResult, pattern: RegExp, label: string) {
  assert.equal(run.code, 1, `${label}: ${run.stderr}`);
  const lines = run.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `${label}: ${run.stderr}`);
  assert.match(lines[0]!.replace(/^agentpipe: error: /, ''), pattern, label);
  assert.doesNotMatch(run.stderr, /internal error|\n\s+at /, label);
}

test('every set-up error ends in one result in stream-json and json, and in one stderr line in text', async () => {
  const dir = tempDir({ 'broken.json': '{"permissions": ' });
  // No wrapped CLI is found on this PATH (the CLI itself starts by its full path).
  const env = { PATH: tempDir() };
  for (const [label, args, pattern] of cases(dir)) {
    const base = ['-p', 'hi', ...args];
    const stream = await runCli([...base, '--output-format', 'stream-json', '--verbose'], { cwd: dir, env });
    assertOneLine(stream, pattern, `${label} (stream-json)`);
    assertOneResult(parseLines(stream.stdout), pattern, `${label} (stream-json)`);

    const json = await runCli([...base, '--output-format', 'json'], { cwd: dir, env });
    assertOneLine(json, pattern, `${label} (json)`);
    assertOneResult([JSON.parse(json.stdout)], pattern, `${label} (json)`);

    const text = await runCli(base, { cwd: dir, env });
    assertOneLine(text, pattern, `${label} (text)`);
    assert.equal(text.stdout, '', `${label} (text): nothing on stdout`);
  }
});

test('a set-up error with stream-json input is one result at once, under the session id given', async () => {
  const dir = tempDir();
  const run = await runCli(
    [
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      SESSION,
      '--model',
      'scriptd',
    ],
    { cwd: dir },
  );
  assertOneLine(run, /^unknown model 'scriptd'/, 'stream-json input');
  const result = assertOneResult(parseLines(run.stdout), /^unknown model 'scriptd'/, 'stream-json input');
  assert.equal(result.session_id, SESSION);
});

test('no key for the chosen model: one result, last, is_error, exit 1, as Claude Code ends a run with no login', async () => {
  const dir = tempDir();
  const run = await runCli(
    ['-p', 'hi', '--model', 'claude-sonnet-4-6', '--output-format', 'stream-json', '--verbose'],
    {
      cwd: dir,
    },
  );
  assert.equal(run.code, 1, run.stderr);
  const lines = parseLines(run.stdout);
  assert.equal(lines.filter((l) => l.type === 'result').length, 1);
  const result = lines.at(-1)!;
  assert.equal(result.type, 'result');
  assert.equal(result.is_error, true);
  assert.match(result.result, /^No Anthropic API key: set ANTHROPIC_API_KEY/);
  const json = await runCli(['-p', 'hi', '--model', 'claude-sonnet-4-6', '--output-format', 'json'], { cwd: dir });
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stdout).is_error, true);
});

test('an empty prompt in json is one result saying how to give one; in text, the one stderr line', async () => {
  const dir = tempDir();
  const json = await runCli(['-p', '--output-format', 'json', '--model', 'scripted'], { cwd: dir });
  assertOneLine(json, /^Input must be provided/, 'json');
  assertOneResult([JSON.parse(json.stdout)], /^Input must be provided/, 'json');
  const text = await runCli(['-p', '--model', 'scripted'], { cwd: dir });
  assertOneLine(text, /^Input must be provided/, 'text');
  assert.equal(text.stdout, '');
});
