/**
 * The network of a session's sandboxed commands (the namespace's holder and the egress proxy) starts once, early:
 * `startEgressEarly` (what a session with `sandbox.network.allowedDomains` calls when it opens) starts it in the
 * background; the session's commands all use that one holder; a holder that died (killed, crashed) is replaced for
 * the very command that finds it gone; a session that closes while its holder starts stops it; the CLI's session
 * with allowedDomains and no command leaves no holder behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { once } from 'node:events';
import { closeSandbox, type SandboxConfig } from '../../src/sandbox/config.ts';
import { runSandboxed } from '../../src/sandbox/run.ts';
import { startEgressEarly } from '../../src/sandbox/sandbox.ts';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { processesWith } from '../helpers/processes.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

/** A loopback server that greets each connection and closes it. */
async function greeter(): Promise<{ port: number; close(): void }> {
  const server = net.createServer((socket) => socket.end('reached\n'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** The pids of the holders whose forwarded ports start with `port` (its argv names them). */
const holders = (port: number) =>
  processesWith(`{"forwards":[${port}`)
    .filter((line) => !line.includes('bwrap'))
    .map((line) => Number(line.split(' ')[0]));

/** Waits (up to ~2 s: a killed process lingers until it is reaped) for no holder of `port` to be listed. */
async function holdersGone(port: number): Promise<boolean> {
  for (let i = 0; i < 100 && holders(port).length; i++) await new Promise((r) => setTimeout(r, 20));
  return holders(port).length === 0;
}

function session(port: number): SandboxConfig {
  const work = path.join(tempDir(), 'work');
  mkdirSync(work);
  const block = { network: { allowedDomains: [`127.0.0.1:${port}`] } };
  return {
    layers: [{ source: 'flagSettings', label: '--settings', block }],
    cwd: work,
    directories: [],
    warn: () => {},
  };
}

/** A workspace command that connects to the forwarded port and prints what it got. */
function reach(config: SandboxConfig, port: number) {
  const command = `(exec 3<>/dev/tcp/127.0.0.1/${port} && timeout 10 cat <&3) 2>/dev/null || echo refused`;
  return runSandboxed(config, { profile: 'workspace', command, cwd: config.cwd, env: { PATH: process.env.PATH } });
}

test('started early, the holder serves every command; a dead one is replaced for the command that finds it', async () => {
  const server = await greeter();
  const config = session(server.port);
  try {
    await startEgressEarly(config);
    const [first, ...more] = holders(server.port);
    assert.ok(first, 'running before any command');
    assert.deepEqual(more, []);
    for (let i = 0; i < 2; i++) assert.equal((await reach(config, server.port)).stdout, 'reached\n');
    assert.deepEqual(holders(server.port), [first], 'both commands used the one holder');
    process.kill(first, 'SIGKILL');
    // Gone, its namespaces with it (a command racing the kill itself would fail to join them: nsenter's error).
    for (let i = 0; i < 100 && existsSync(`/proc/${first}/ns/net`); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await reach(config, server.port)).stdout, 'reached\n', 'the command after the kill reaches the host');
    const [second, ...others] = holders(server.port);
    assert.ok(second !== undefined && second !== first, 'a new holder');
    assert.deepEqual(others, []);
  } finally {
    closeSandbox(config);
    server.close();
  }
  assert.ok(await holdersGone(server.port), 'the holder ends with the session');
});

test('a session that closes while its holder starts stops it', async () => {
  const server = await greeter();
  const config = session(server.port);
  try {
    const started = startEgressEarly(config);
    // Closed as soon as the holder is there (its bubblewrap may not have started Node yet).
    for (let i = 0; i < 500 && processesWith(`{"forwards":[${server.port}`).length === 0; i++)
      await new Promise((r) => setTimeout(r, 2));
    closeSandbox(config);
    await started;
    assert.ok(await holdersGone(server.port), 'no holder left');
  } finally {
    server.close();
  }
});

test('the CLI: a session with allowedDomains and no command answers and leaves no holder', async () => {
  const server = await greeter();
  const dir = tempDir();
  try {
    const script = writeScript(dir, [{ text: 'no command' }]);
    const settings = { sandbox: { network: { allowedDomains: [`127.0.0.1:${server.port}`] } } };
    const run = await runCli(['-p', 'hi', ...scriptedStreamArgs(script), '--settings', JSON.stringify(settings)], {
      cwd: dir,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(parseLines(run.stdout).at(-1)!.result, 'no command');
    assert.ok(await holdersGone(server.port), 'no holder left');
  } finally {
    server.close();
  }
});
