/**
 * Stopping in stages (src/cli/run-stop.ts), with one result whatever the stage (issue 28, B4: a
 * second Ctrl-C killed agentpipe at once, with no result, and a tool that ignores SIGTERM ran on):
 * - a second signal kills the running tool's process group at once, and the prompt still ends
 *   with its one result, last; a tool that ignores SIGTERM does not outlive agentpipe;
 * - a command that left its process group (setsid) but holds the tool's output does not hold the
 *   run;
 * - a run that cannot end by itself (its transcript's disk hangs: a FIFO nobody reads) gives the
 *   result it owes at the deadline (or at a third signal); the process then exits once the blocked
 *   write returns (the test drains the FIFO: no process can leave while a write of its is stuck in
 *   the kernel), and leaves no lock behind.
 * Each step waits for the event before it (a pid file, a stderr line, a stdout line), not a time.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseLines, scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { groupGone } from '../helpers/processes.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { transcriptPath } from '../../src/session/paths.ts';

/**
 * The tests read a command's process group from inside it and check it from here: with no OS sandbox, whose pid
 * namespace would give the command other numbers (test/sandbox checks that a stop ends sandboxed commands).
 */
const HOST_GROUPS = ['--sandbox', 'off'];

/** A running CLI whose output the test watches. */
function watch(child: ReturnType<typeof startCli>) {
  const seen = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (seen.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (seen.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  /** Resolves once `check` holds (checked as output comes, and on each turn of the loop). */
  const until = async (check: () => boolean): Promise<void> => {
    while (!check()) await new Promise((resolve) => setImmediate(resolve));
  };
  return { seen, exited, until };
}

/** The run's output: exactly one result, and it is last; the exit code as expected. Returns the result. */
function oneResultLast(seen: { stdout: string; stderr: string }, code: number | null, expected: number) {
  const lines = parseLines(seen.stdout);
  const results = lines.filter((l) => l.type === 'result');
  assert.equal(results.length, 1, seen.stdout.slice(-2000));
  assert.equal(lines.at(-1)!.type, 'result');
  assert.equal(code, expected, seen.stderr);
  return results[0]!;
}

const prompt = (text: string) =>
  JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null }) + '\n';

/** A Bash call that records its process group in `pidFile`, then runs `rest`. */
function recordingCall(pidFile: string, rest: string) {
  return { name: 'Bash', input: { command: `echo $(ps -o pgid= $$) > ${pidFile}; ${rest}` } };
}

async function pgidFrom(pidFile: string, until: (check: () => boolean) => Promise<void>): Promise<number> {
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
  return Number(readFileSync(pidFile, 'utf8').trim());
}

test('two SIGINTs while a Bash command ignores SIGTERM (stream-json input): one result, exit 130, the group killed', async () => {
  const dir = tempDir();
  const pidFile = path.join(dir, 'pgid');
  const script = writeScript(dir, [{ tool_calls: [recordingCall(pidFile, 'trap "" TERM; sleep 30')] }, { text: 'x' }]);
  // A deadline far away: the second signal, not the deadline, must end the tool.
  const child = startCli(
    [
      '--input-format',
      'stream-json',
      ...scriptedStreamArgs(script),
      '--permission-mode',
      'bypassPermissions',
      ...HOST_GROUPS,
    ],
    { cwd: dir, env: { AGENTPIPE_STOP_GRACE_MS: '60000' } },
  );
  const { seen, exited, until } = watch(child);
  child.stdin!.write(prompt('go')); // the input stays open, as a client's does
  const pgid = await pgidFrom(pidFile, until);
  child.kill('SIGINT');
  await until(() => seen.stderr.includes('SIGINT: interrupting'));
  child.kill('SIGINT');
  const code = await exited;
  child.stdin!.destroy();
  assert.equal(oneResultLast(seen, code, 130).subtype, 'error_during_execution');
  assert.match(seen.stderr, /SIGINT again: killing the running tools/);
  assert.ok(await groupGone(pgid), 'the command that ignores SIGTERM outlived agentpipe');
});

test('one SIGTERM while a Bash command ignores it: the command is killed after its grace, one result, exit 143', async () => {
  const dir = tempDir();
  const pidFile = path.join(dir, 'pgid');
  const script = writeScript(dir, [{ tool_calls: [recordingCall(pidFile, 'trap "" TERM; sleep 30')] }, { text: 'x' }]);
  const child = startCli(
    ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions', ...HOST_GROUPS],
    {
      cwd: dir,
      env: { AGENTPIPE_STOP_GRACE_MS: '60000' },
    },
  );
  const { seen, exited, until } = watch(child);
  child.stdin!.end();
  const pgid = await pgidFrom(pidFile, until);
  child.kill('SIGTERM');
  oneResultLast(seen, await exited, 143);
  assert.ok(await groupGone(pgid), 'the command that ignores SIGTERM outlived agentpipe');
});

test('a command that left its process group but holds the output pipe does not hold the stop', async () => {
  const dir = tempDir();
  const pidFile = path.join(dir, 'pgid');
  const escaped = path.join(dir, 'escaped');
  // setsid: a session (and group) of its own, beyond the group's signals; it keeps the tool's stdout open.
  const rest = `setsid sh -c 'echo $$ > ${escaped}; exec sleep 30'; echo never`;
  const script = writeScript(dir, [{ tool_calls: [recordingCall(pidFile, rest)] }, { text: 'x' }]);
  const child = startCli(
    ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions', ...HOST_GROUPS],
    {
      cwd: dir,
      env: { AGENTPIPE_STOP_GRACE_MS: '60000' },
    },
  );
  const { seen, exited, until } = watch(child);
  child.stdin!.end();
  await pgidFrom(pidFile, until);
  await until(() => existsSync(escaped) && readFileSync(escaped, 'utf8').trim() !== '');
  const escapedPid = Number(readFileSync(escaped, 'utf8').trim());
  try {
    child.kill('SIGINT');
    oneResultLast(seen, await exited, 130);
    assert.doesNotMatch(seen.stderr, /did not end within/, 'the run ended by itself, not at the deadline');
  } finally {
    process.kill(escapedPid, 'SIGKILL'); // out of agentpipe's reach by design: a sandbox's job
  }
});

for (const signals of [1, 3] as const) {
  test(
    `a run that cannot end (its transcript's disk hangs) and ${signals} SIGTERM: ended with the result it owes, ` +
      'exit 143, no lock left',
    { skip: process.platform === 'win32' ? 'needs a FIFO' : false },
    async () => {
      const dir = tempDir();
      const home = tempDir();
      const sessionId = '2828b4b4-0000-4000-8000-000000000028';
      const fifo = transcriptPath(dir, sessionId, home);
      mkdirSync(path.dirname(fifo), { recursive: true });
      execFileSync('mkfifo', [fifo]);
      // An answer larger than a pipe holds: the transcript's write blocks, and the result waits for it.
      const script = writeScript(dir, [{ text: 'x'.repeat(200_000), chunk_size: 50_000 }]);
      const child = startCli(['-p', 'go', ...scriptedStreamArgs(script), '--session-id', sessionId], {
        cwd: dir,
        env: { AGENTPIPE_HOME: home, AGENTPIPE_STOP_GRACE_MS: signals === 1 ? '500' : '60000' },
      });
      const { seen, exited, until } = watch(child);
      child.stdin!.end();
      await until(() => seen.stdout.includes('"type":"assistant"'));
      child.kill('SIGTERM');
      for (let sent = 1; sent < signals; sent++) {
        const told = sent === 1 ? 'SIGTERM: interrupting' : 'SIGTERM again';
        await until(() => seen.stderr.includes(told));
        child.kill('SIGTERM');
      }
      await until(() => seen.stdout.includes('"type":"result"'));
      // The disk comes back: the blocked write returns, and the process can exit.
      const drain = spawn('cat', [fifo], { stdio: 'ignore' });
      const code = await exited;
      drain.kill();
      const result = oneResultLast(seen, code, 143);
      assert.equal(result.subtype, 'error_during_execution');
      assert.equal(result.session_id, sessionId);
      assert.deepEqual(result.errors, ['SIGTERM received and the prompt did not end in time']);
      assert.match(seen.stderr, signals === 1 ? /did not end within 500 ms/ : /(third time|did not end within)/);
      assert.equal(existsSync(`${fifo}.lock`), false, 'the session lock was left behind');
    },
  );
}

test('an MCP server that never finishes its handshake: a stop ends the wait, the prompt ends as interrupted', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'never asked' }]);
  const config = JSON.stringify({ mcpServers: { silent: { command: 'sleep', args: ['60'] } } });
  const child = startCli(['-p', 'go', ...scriptedStreamArgs(script), '--mcp-config', config], {
    cwd: dir,
    // The signal comes as the session opens, while the server is still connecting; the deadline is far away.
    env: { AGENTPIPE_TEST_SIGNAL: 'SIGINT@session', AGENTPIPE_STOP_GRACE_MS: '60000', MCP_TIMEOUT: '60000' },
  });
  const { seen, exited } = watch(child);
  child.stdin!.end();
  const result = oneResultLast(seen, await exited, 130);
  // As Claude Code ends an interrupted prompt: its diagnostic line (the last message the notice, no reply yet).
  assert.deepEqual(result.errors, ['[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null']);
  assert.equal(result.terminal_reason, 'aborted_streaming');
});
