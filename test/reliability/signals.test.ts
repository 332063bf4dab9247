/**
 * Exit paths: SIGHUP ends a run like SIGTERM (one result, the tool's process group gone), and a
 * listing bigger than a pipe buffer reaches a slow reader whole before the process exits.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLI_PATH, parseLines, scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { projectDir } from '../../src/session/paths.ts';
import { groupAlive, groupGone } from '../helpers/processes.ts';

for (const signal of ['SIGHUP', 'SIGTERM', 'SIGINT'] as const) {
  test(`${signal} while a Bash command runs: one result, the command's process group is gone`, async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'pid');
    // The command records its process group, then waits in a child of its own: both must go.
    const script = writeScript(dir, [
      {
        tool_calls: [
          {
            name: 'Bash',
            id: 'toolu_sleep',
            input: { command: `echo $(ps -o pgid= $$) > ${pidFile}; sleep 60 & wait` },
          },
        ],
      },
      { text: 'never' },
    ]);
    // --sandbox off: the command records its process group id, which only the host's PID namespace
    // shows (inside the sandbox it would be the namespace's own). test/sandbox covers sandboxed stops.
    const child = startCli(
      ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions', '--sandbox', 'off'],
      { cwd: dir },
    );
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.resume();
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Wait for the tool to start (its pid file), then send the signal.
    const { readFileSync, existsSync } = await import('node:fs');
    while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8').trim()) await new Promise((r) => setImmediate(r));
    const pgid = Number(readFileSync(pidFile, 'utf8').trim());
    assert.ok(groupAlive(pgid));
    child.kill(signal);
    const code = await exited;
    const lines = parseLines(stdout);
    const results = lines.filter((l) => l.type === 'result');
    assert.equal(results.length, 1, stdout);
    assert.equal(results[0]!.subtype, 'error_during_execution');
    assert.equal(
      code,
      { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }[signal],
      `exit code ${code}: 128 + the signal's number`,
    );
    // Killed processes may linger a moment until they are reaped; they must not run on.
    assert.ok(await groupGone(pgid), 'the tool process group outlived agentpipe');
  });
}

test('agentpipe sessions --json into a slow pipe: the whole listing arrives (no cut at 64 KiB)', async () => {
  const home = tempDir();
  const cwd = tempDir();
  const project = projectDir(cwd, home);
  mkdirSync(project, { recursive: true });
  for (let i = 0; i < 400; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const lines = [
      { type: 'system', subtype: 'init', cwd: '/tmp', session_id: id, uuid: `i${i}`, model: 'scripted', tools: [] },
      {
        type: 'user',
        agentpipe_prompt: true,
        message: { role: 'user', content: `prompt ${i} ${'x'.repeat(300)}` },
        session_id: id,
        uuid: `u${i}`,
        timestamp: new Date(0).toISOString(),
      },
    ];
    writeFileSync(path.join(project, `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  }
  const child = spawn(process.execPath, [CLI_PATH, 'sessions', '--json', '--cwd', cwd], {
    env: { ...process.env, AGENTPIPE_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  // A reader that starts late and takes small bites, yielding between them.
  await new Promise((r) => setTimeout(r, 300));
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) {
    chunks.push(chunk as Buffer);
    await new Promise((r) => setImmediate(r));
  }
  const code = await closed;
  assert.equal(code, 0);
  const text = Buffer.concat(chunks).toString('utf8');
  assert.ok(text.length > 65_536, `the listing is ${text.length} bytes`);
  assert.equal((JSON.parse(text) as unknown[]).length, 400);
});
