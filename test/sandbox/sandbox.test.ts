/**
 * The OS sandbox through the real CLI (bubblewrap on this machine): with the check bypassed on
 * purpose nothing writes outside the working folders or into .git/hooks and no key, credential
 * store or network is reachable, for Bash, a command hook and an MCP stdio server alike; in the
 * default mode a command the check let through without asking cannot write at all; `sandbox
 * doctor`'s probes all hold (and each escapes with the sandbox off, so they test something);
 * without bubblewrap `required` fails closed and `auto` says so once; a stop ends a sandboxed command
 * that ignores SIGTERM.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { processesWith } from '../helpers/processes.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const KEY = 'sk-ant-sandbox-test-SECRET';

/** A working folder with a repository, a home with credential stores, and a folder outside both. */
function world() {
  const root = tempDir();
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  const home = path.join(root, 'home');
  for (const dir of [path.join(work, '.git', 'hooks'), outside, path.join(home, '.ssh'), path.join(home, '.agentpipe')])
    mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'SSH-SECRET\n');
  writeFileSync(path.join(work, 'a.txt'), 'b\na\n');
  const env = { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe'), ANTHROPIC_API_KEY: KEY };
  return { work, outside, home, env };
}

function bash(command: string) {
  return { tool_calls: [{ name: 'Bash', input: { command } }] };
}

/** Runs each command as one Bash call in bypassPermissions (the check out of the way): the sandbox alone holds. */
async function bypassing(w: ReturnType<typeof world>, commands: string[], extra: string[] = []) {
  const script = writeScript(w.work, [...commands.map(bash), { text: 'done' }]);
  const args = ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions', ...extra];
  const run = await runCli(args, {
    cwd: w.work,
    env: w.env,
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  return run;
}

test('bypassPermissions: Bash cannot write outside or into .git/hooks, read keys, credential stores or the network', async () => {
  const w = world();
  const attacks = [
    `echo pwned > ${w.outside}/bash.txt`,
    'echo pwned > .git/hooks/pre-commit',
    `cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ${KEY} || true`,
    'cat ~/.ssh/id_ed25519',
    `cat "$AGENTPIPE_HOME"/* 2>&1 | head -1; ls /proc | grep -c '^[0-9]'`,
    'exec 3<>/dev/tcp/127.0.0.1/9 && echo CONNECTED || echo no-network',
    'echo inside > made.txt && cat made.txt',
  ];
  const run = await bypassing(w, attacks);
  const results = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content));
  assert.equal(results.length, attacks.length);
  assert.equal(existsSync(path.join(w.outside, 'bash.txt')), false, 'nothing written outside');
  assert.equal(existsSync(path.join(w.work, '.git/hooks/pre-commit')), false, 'no hook planted');
  assert.match(results[2]!, /"0|\(Bash completed/, 'no environ holds the key');
  assert.doesNotMatch(run.stdout, /SSH-SECRET/);
  assert.doesNotMatch(run.stdout.replaceAll(`${KEY}`, ''), /sandbox-test-SECRET/);
  assert.match(results[5]!, /no-network/);
  assert.match(results[6]!, /inside/, 'the working folder stays writable');
  assert.equal(readFileSync(path.join(w.work, 'made.txt'), 'utf8'), 'inside\n');
});

test('default mode: a line the check lets through without asking runs read-only (a misclassified write fails)', async () => {
  const w = world();
  // Lines the check has let through as read-only (issue 26): whatever it decides, nothing may be written.
  const lines = ['ls \r# ; touch PWNED1', 'sort --o=PWNED2 a.txt', 'ls; cat a.txt'];
  const script = writeScript(w.work, [...lines.map(bash), { text: 'done' }]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script)], { cwd: w.work, env: w.env, timeoutMs: 60_000 });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(existsSync(path.join(w.work, 'PWNED1')), false);
  assert.equal(existsSync(path.join(w.work, 'PWNED2')), false);
  const last = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .at(-1)!;
  assert.match(JSON.stringify(last.message.content), /a\.txt/, 'a read-only line still reads');
});

test('a command hook and an MCP stdio server run in the same sandbox', async () => {
  const w = world();
  const attack = (name: string) =>
    `echo pwned > ${w.outside}/${name}.txt; cat ~/.ssh/id_ed25519 > ${name}-leak.txt; ` +
    `tr '\\0' '\\n' < /proc/$PPID/environ | grep -c ${KEY} > ${name}-env.txt; exit 0`;
  const settings = { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: attack('hook') }] }] } };
  const mcp = { mcpServers: { probe: { command: 'bash', args: ['-c', attack('mcp')] } } };
  const script = writeScript(w.work, [{ text: 'done' }]);
  const run = await runCli(
    [
      '-p',
      'go',
      ...scriptedStreamArgs(script),
      '--permission-mode',
      'bypassPermissions',
      '--settings',
      JSON.stringify(settings),
      '--mcp-config',
      JSON.stringify(mcp),
    ],
    { cwd: w.work, env: w.env, timeoutMs: 60_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  for (const name of ['hook', 'mcp']) {
    assert.equal(existsSync(path.join(w.outside, `${name}.txt`)), false, `${name}: nothing written outside`);
    assert.equal(readFileSync(path.join(w.work, `${name}-leak.txt`), 'utf8'), '', `${name}: no credential store`);
    assert.notEqual(readFileSync(path.join(w.work, `${name}-env.txt`), 'utf8').trim(), '1', `${name}: no key`);
  }
});

test('sandbox doctor: every probe holds; with the sandbox off it says so and exits 1', async () => {
  const dir = tempDir();
  const run = await runCli(['sandbox', 'doctor', '--json'], { cwd: dir, timeoutMs: 60_000 });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const report = JSON.parse(run.stdout) as { confined: boolean; probes: Array<{ name: string; held: boolean }> };
  assert.equal(report.confined, true);
  assert.ok(report.probes.length >= 29);
  for (const name of [
    'reach an allowed host through the egress proxy',
    'reach a host not in allowedDomains',
    'reach a host in deniedDomains',
    "reach the host's loopback through the egress proxy",
    "reach the host's loopback",
    'write the git index',
    'create .mcp.json',
  ])
    assert.ok(
      report.probes.some((p) => p.name === name),
      name,
    );
  assert.equal(run.stderr, '', 'the refusals the probes provoke are in the report, not on stderr');
  assert.deepEqual(
    report.probes.filter((p) => !p.held),
    [],
  );
  const off = await runCli(['sandbox', 'doctor', '--sandbox', 'off'], { cwd: dir });
  assert.equal(off.code, 1);
  assert.match(off.stdout, /NOT confining commands here: the sandbox is off/);
});

test('no bubblewrap: --sandbox required is an error result and exit 1; auto runs on with one stderr line', async () => {
  const w = world();
  // A PATH with bash and the tools the command needs, but no bwrap.
  const bin = path.join(w.home, 'bin');
  mkdirSync(bin);
  for (const tool of ['bash', 'cat', 'ls']) symlinkSync(`/usr/bin/${tool}`, path.join(bin, tool));
  const script = writeScript(w.work, [bash('cat a.txt'), bash('ls'), { text: 'done' }]);
  const env = { ...w.env, PATH: bin };
  const required = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--sandbox', 'required'], {
    cwd: w.work,
    env,
  });
  assert.equal(required.code, 1);
  const lines = parseLines(required.stdout);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.type, 'result');
  assert.equal(lines[0]!.is_error, true);
  assert.match(lines[0]!.errors[0], /sandbox is required .* bubblewrap \(bwrap\) is not installed/);
  const auto = await runCli(['-p', 'go', ...scriptedStreamArgs(script)], { cwd: w.work, env });
  assert.equal(auto.code, 0, auto.stderr);
  const warnings = auto.stderr.split('\n').filter((line) => /sandbox unavailable/.test(line));
  assert.equal(warnings.length, 1, auto.stderr);
  assert.match(warnings[0]!, /commands run unconfined .*bubblewrap \(bwrap\) is not installed/);
  assert.match(auto.stdout, /"result":"done"/);
});

test('a stop ends a sandboxed command that ignores SIGTERM: nothing of it outlives agentpipe', async () => {
  const w = world();
  // A command line no other process has, to find it from the host (its pid namespace has other numbers).
  const marker = `sleep 3000.${process.pid}${Date.now() % 100000}`;
  const script = writeScript(w.work, [bash(`trap "" TERM; echo started > started.txt; ${marker}`), { text: 'x' }]);
  const child = startCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
    cwd: w.work,
    env: { ...w.env, AGENTPIPE_STOP_GRACE_MS: '60000' },
  });
  child.stdin!.end();
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  // Wait for the command itself (bubblewrap's own argv holds the marker too: the file says the command runs).
  while (!existsSync(path.join(w.work, 'started.txt'))) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(processesWith(marker).length > 0);
  child.kill('SIGTERM');
  assert.equal(await exited, 143);
  const results = parseLines(stdout).filter((l) => l.type === 'result');
  assert.equal(results.length, 1);
  // Killed processes may linger until reaped: give them up to ~2 s.
  for (let i = 0; i < 100 && processesWith(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(processesWith(marker), []);
});

/** Attacks on a repository's git folder: repoint it (commondir) or replace it, each planting a config of its own. */
function gitFolderAttacks(w: ReturnType<typeof world>): string[] {
  writeFileSync(path.join(w.work, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  mkdirSync(path.join(w.work, '.git', 'objects'));
  mkdirSync(path.join(w.work, '.git', 'refs'));
  const config = `[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch PWNED; false\\n`;
  return [
    // git takes config and hooks from the folder commondir names: the next `git status` outside would run it.
    `mkdir -p evil/objects evil/refs && printf '${config}' > evil/config && echo ../evil > .git/commondir; echo done`,
    // A .git moved aside and a new one made in its place, with a config of the command's.
    `mv .git .git-old && mkdir -p .git/objects .git/refs && printf '${config}' > .git/config; echo done`,
    'git update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,x.txt 2>&1; echo "index=$?"',
  ];
}

function assertGitFolderHeld(w: ReturnType<typeof world>): void {
  assert.equal(existsSync(path.join(w.work, '.git-old')), false, '.git not moved');
  assert.equal(existsSync(path.join(w.work, '.git', 'commondir')), false, 'no commondir left');
  assert.doesNotMatch(readFileSync(path.join(w.work, '.git', 'HEAD'), 'utf8'), /evil/);
  assert.equal(existsSync(path.join(w.work, '.git', 'config')), false, 'no config planted');
}

test("bypassPermissions: a repository's git folder is read-only whole: no commondir, no .git in its place, no index", async () => {
  const w = world();
  const run = await bypassing(w, gitFolderAttacks(w));
  const results = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content));
  assert.match(results[0]!, /commondir: Read-only file system/);
  assert.match(results[2]!, /Read-only file system.*index=[1-9]/);
  assertGitFolderHeld(w);
});

test('allowWrite naming the git folder: git may write it, but not commondir, config or hooks', async () => {
  const w = world();
  const settings = JSON.stringify({ sandbox: { filesystem: { allowWrite: ['./.git'] } } });
  const run = await bypassing(w, gitFolderAttacks(w), ['--settings', settings]);
  const results = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content));
  assert.match(run.stderr, /removed .*\.git\/commondir/, 'a commondir made is removed after the command');
  assert.match(results[2]!, /index=0/, 'git writes the index');
  assertGitFolderHeld(w);
});

test('a working folder whose .git is a file (a linked worktree, a submodule): commands run, and cannot repoint it', async () => {
  const w = world();
  rmSync(path.join(w.work, '.git'), { recursive: true, force: true });
  const gitdir = path.join(path.dirname(w.work), 'real-gitdir');
  mkdirSync(gitdir);
  writeFileSync(path.join(w.work, '.git'), `gitdir: ${gitdir}\n`);
  const script = writeScript(w.work, [
    bash('echo "gitdir: /tmp/evil" > .git; echo ok > made.txt; echo done'),
    { text: 'x' },
  ]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
    cwd: w.work,
    env: w.env,
  });
  const result = parseLines(run.stdout).at(-1)!;
  assert.equal(result.type, 'result', run.stderr);
  assert.equal(readFileSync(path.join(w.work, '.git'), 'utf8'), `gitdir: ${gitdir}\n`);
  assert.equal(readFileSync(path.join(w.work, 'made.txt'), 'utf8'), 'ok\n');
});
