/**
 * Text mode in a terminal is not mute: `-p` in a real pseudo-terminal (test/tui/pty.py) shows live progress on stderr
 * (MCP failures, retries, tool calls with status and duration, denials with their hint, the cost after the answer);
 * NO_COLOR drops the colours, --quiet the progress; into pipes nothing changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { CLI_PATH, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const PTY = path.join(import.meta.dirname, 'pty.py');

/**
 * The environment of a colour terminal: no colour settings of the machine running the tests. `CI` goes too: Node's
 * `hasColors()` counts a terminal under an unnamed CI as colourless (`getColorDepth` returns 2 when `CI` is set).
 */
function terminalEnv(): NodeJS.ProcessEnv {
  const {
    NO_COLOR: _,
    FORCE_COLOR: __,
    NODE_DISABLE_COLORS: ___,
    CI: ____,
    TEAMCITY_VERSION: _____,
    ...env
  } = process.env;
  return { ...env, ANTHROPIC_API_KEY: '', TERM: 'xterm-256color' };
}

/** Runs the CLI with `args` in a pseudo-terminal 100 columns wide; everything the terminal showed. */
function inTerminal(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; screen: string }> {
  const child = spawn('python3', [PTY, '100', '--', process.execPath, CLI_PATH, ...args], {
    cwd,
    env: { ...terminalEnv(), ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end();
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })));
}

/** A run that meets everything the progress shows: an MCP server that fails, a retry, a denial, a failing tool. */
function scenario() {
  const dir = tempDir({ 'README.md': '# hi\n' });
  const script = writeScript(dir, [
    { error: { status: 529, retry_after_s: 0 } },
    {
      tool_calls: [
        { name: 'Bash', input: { command: 'rm -rf build' } },
        { name: 'Read', input: { file_path: 'README.md' } },
        { name: 'Read', input: { file_path: 'missing.md' } },
      ],
    },
    { text: 'All done.' },
  ]);
  const args = ['-p', 'tidy up', '--model', 'scripted', '--script', script];
  return { dir, args, mcp: ['--mcp-config', '{"mcpServers":{"broken":{"command":"/no/such/server"}}}'] };
}

/** The lines the terminal kept (each status line rewrite dropped, escape sequences removed). */
const lines = (screen: string) =>
  screen
    .split('\r\n')
    .map((line) =>
      line
        .split('\r')
        .at(-1)!
        .replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''),
    )
    .filter(Boolean);

test('-p text in a terminal: progress on stderr in order, the answer, then the time, turns and cost', async () => {
  const { dir, args, mcp } = scenario();
  const { code, screen } = await inTerminal([...args, ...mcp], dir, { NO_COLOR: '1' });
  assert.equal(code, 0, screen);
  assert.doesNotMatch(screen, /\x1b\[3\dm/, 'NO_COLOR: no colours');
  const shown = lines(screen);
  const at = (pattern: RegExp) => {
    const index = shown.findIndex((line) => pattern.test(line));
    assert.ok(index >= 0, `${pattern} in:\n${shown.join('\n')}`);
    return index;
  };
  const order = [
    at(/^! MCP server broken failed: spawn \/no\/such\/server ENOENT/),
    at(/^↻ retry 1\/\d+ in 0\.0 s: overloaded \(529\)$/),
    // Claude Code 2.1.332's words for a line nobody could be asked about (agent/claude-denial.ts).
    at(/^✗ Bash denied: rm in '.*\/build' needs approval\. The path is inside the working directories/),
    at(/^All done\.$/),
    at(/^done in \d+\.\d s · 4 turns · \$0\.0000$/),
  ];
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  assert.ok(at(/^✓ Read README\.md \(\d+\.\d s\)$/) < order[3]!);
  assert.ok(at(/^✗ Read missing\.md \(\d+\.\d s\): File does not exist/) < order[3]!);
  assert.equal(shown.at(-1), shown[order[4]!], 'the summary is the last line');
});

test('colours in a colour terminal; --quiet shows only the answer; into pipes stderr stays empty', async () => {
  const { dir, args } = scenario();
  const coloured = await inTerminal(args, dir, {});
  assert.equal(coloured.code, 0, coloured.screen);
  assert.match(coloured.screen, /\x1b\[32m✓ Read README\.md/);
  const quiet = await inTerminal([...args, '--quiet'], dir, {});
  assert.equal(quiet.code, 0, quiet.screen);
  assert.equal(quiet.screen, 'All done.\r\n');
  const piped = await runCli(args, { cwd: dir });
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, 'All done.\n');
  assert.equal(piped.stderr, '');
});
