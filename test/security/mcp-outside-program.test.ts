/**
 * Attacker rows: an MCP stdio server whose sandbox the user turned off (`"sandbox": { "enabled": false }`) runs as
 * agentpipe does. Named by a bare name, it is looked up on its PATH as agentpipe's own programs are
 * (process/executable.ts): a PATH entry inside the working folder, `.`, or a link in a folder of the user's that leads
 * into the working folder would have it run a program a sandboxed command planted there, unconfined.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseLines, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { FIXTURE, mcpCliArgs, userLine } from '../mcp/helpers.ts';

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

/** A working folder with a program `planted` in `bin/` that leaves a marker when it runs, and a home outside it. */
function workspace(): { work: string; home: string; marker: string } {
  const root = tempDir();
  const work = path.join(root, 'work');
  const home = path.join(root, 'home');
  const marker = path.join(root, 'PWNED');
  mkdirSync(path.join(work, 'bin'), { recursive: true });
  mkdirSync(path.join(home, 'bin'), { recursive: true });
  writeFileSync(path.join(work, 'bin', 'planted'), `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(path.join(work, 'bin', 'planted'), 0o755);
  return { work, home, marker };
}

/** Starts a session in `work` with one unsandboxed server; returns its init status. */
async function serverStatus(
  work: string,
  home: string,
  server: Record<string, unknown>,
): Promise<{ status: string; error?: string }> {
  const servers = { s: { ...server, sandbox: { enabled: false } } };
  const script = writeScript(tempDir(), [{ text: 'done' }]);
  const run = await runCli(mcpCliArgs(servers, script), {
    cwd: work,
    stdin: `${userLine('go')}\n`,
    env: { ...process.env, HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') },
    timeoutMs: 40_000,
  });
  const init = parseLines(run.stdout).find((m) => m.subtype === 'init');
  assert.ok(init, run.stderr);
  return init.mcp_servers.find((s: { name: string }) => s.name === 's');
}

for (const [label, entries] of [
  ['a PATH entry inside the working folder', (work: string) => `${path.join(work, 'bin')}:${SYSTEM_PATH}`],
  ['`.` on PATH (the server starts in the working folder)', () => `.:${SYSTEM_PATH}`],
  ['an empty PATH entry', () => `:${SYSTEM_PATH}`],
] as const) {
  test(`an unsandboxed MCP server named by a bare name is not the working folder's, with ${label}`, async () => {
    const { work, home, marker } = workspace();
    const cwd = label.startsWith('`.`') || label.startsWith('an empty') ? path.join(work, 'bin') : work;
    const found = await serverStatus(work, home, { command: 'planted', cwd, env: { PATH: entries(work) } });
    assert.equal(existsSync(marker), false, 'the program planted in the working folder ran unconfined');
    assert.equal(found.status, 'failed');
    assert.match(found.error ?? '', /not found on PATH outside the working folders/);
  });
}

test("nor through a link in a folder of the user's that leads into the working folder", async () => {
  const { work, home, marker } = workspace();
  symlinkSync(path.join(work, 'bin', 'planted'), path.join(home, 'bin', 'planted'));
  const found = await serverStatus(work, home, {
    command: 'planted',
    env: { PATH: `${path.join(home, 'bin')}:${SYSTEM_PATH}` },
  });
  assert.equal(existsSync(marker), false, 'the program the link leads to ran unconfined');
  assert.equal(found.status, 'failed');
});

test("held: a bare name found outside the working folders starts (node, by a link of the user's)", async () => {
  const { work, home } = workspace();
  symlinkSync(process.execPath, path.join(home, 'bin', 'node'));
  const found = await serverStatus(work, home, {
    command: 'node',
    args: [FIXTURE],
    env: { PATH: `${path.join(home, 'bin')}:${SYSTEM_PATH}` },
  });
  assert.equal(found.status, 'connected', found.error ?? '');
});

test('held: a path the user wrote is taken as given, inside the working folder too', async () => {
  const { work, home, marker } = workspace();
  await serverStatus(work, home, { command: path.join(work, 'bin', 'planted') });
  assert.equal(existsSync(marker), true, 'the server the user named by its path did not start');
});

for (const named of [false, true])
  test(`nor by the interpreter a user's program names through env (\`#!/usr/bin/env node\`, as npx does)${named ? ', the program named by its path' : ''}`, async () => {
    // The server's program is the user's, found outside the working folders; its first line has env look its
    // interpreter up on the PATH the server is given, whose entry inside the working folder holds a planted `node`.
    const { work, home, marker } = workspace();
    writeFileSync(path.join(work, 'bin', 'node'), `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(path.join(work, 'bin', 'node'), 0o755);
    writeFileSync(
      path.join(home, 'bin', 'srv'),
      `#!/usr/bin/env node\nimport(${JSON.stringify(pathToFileURL(FIXTURE).href)});\n`,
    );
    chmodSync(path.join(home, 'bin', 'srv'), 0o755);
    symlinkSync(process.execPath, path.join(home, 'node'));
    const found = await serverStatus(work, home, {
      command: named ? path.join(home, 'bin', 'srv') : 'srv',
      env: { PATH: `${path.join(home, 'bin')}:${path.join(work, 'bin')}:${home}:${SYSTEM_PATH}` },
    });
    assert.equal(existsSync(marker), false, 'the interpreter planted in the working folder ran unconfined');
    assert.equal(found.status, 'connected', found.error ?? '');
  });
