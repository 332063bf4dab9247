/**
 * The single executable (`npm run dist`, scripts/sea.ts): one file that answers `-p hi` on a machine whose own `node`
 * is older than agentpipe needs (PATH holds only the system's tools, and its node when it has one: Node 20 here), runs
 * a Bash command that only the grammar can read (its WebAssembly files are assets of the executable), and says its
 * version. The build is reused when it is newer than dist/ (which every test run builds first); otherwise it is made
 * here: ~25 s on a busy 2-core machine, once per build of the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { runToEnd } from '../helpers/processes.ts';
import { scratchDir } from '../helpers/temp.ts';
import { buildSea, SEA_PATH, seaIsCurrent } from '../../scripts/sea.ts';

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

test('the single executable runs -p hi and a grammar-parsed Bash command with only the system node on PATH', async () => {
  const executable = seaIsCurrent() ? SEA_PATH : await buildSea('ignore');
  const dir = scratchDir('agentpipe-sea-');
  writeFileSync(path.join(dir, 'NOTES.md'), '# Notes\n');
  const env = { PATH: SYSTEM_PATH, HOME: dir, AGENTPIPE_HOME: path.join(dir, '.agentpipe') };
  // What node PATH offers, if any, is not the one agentpipe needs (the launcher would refuse Node 20).
  let systemNode = 'none';
  try {
    systemNode = execFileSync('sh', ['-c', 'node --version'], { env, encoding: 'utf8' }).trim();
  } catch {
    // no node on PATH at all: the executable needs none
  }
  assert.doesNotMatch(systemNode, /^v2[4-9]\./, `PATH's node is not the pinned one (${systemNode})`);

  const version = await runToEnd(executable, ['--version'], { cwd: dir, env });
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(version.stdout, `${pkg.version}\n`);

  const hi = await runToEnd(executable, ['-p', 'hi'], { cwd: dir, env });
  assert.equal(hi.code, 0, hi.stderr);
  assert.match(hi.stdout, /NOTES\.md/);

  // Quotes, a pipe and &&: the fast parser gives up, the tree-sitter grammar (an asset of the executable) reads it and
  // finds it read-only, so it runs without asking.
  const script = path.join(dir, 'script.json');
  const command = 'echo "from-the-grammar" | head -n 1 && pwd';
  writeFileSync(
    script,
    JSON.stringify({ turns: [{ tool_calls: [{ name: 'Bash', input: { command } }] }, { text: 'done' }] }),
  );
  const args = ['-p', 'go', '--model', 'scripted', '--script', script, '--output-format', 'stream-json', '--verbose'];
  const bash = await runToEnd(executable, args, { cwd: dir, env });
  assert.equal(bash.code, 0, bash.stderr);
  const lines = bash.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; message?: { content: Array<{ type: string; content?: unknown }> } });
  const toolResult = lines.find((l) => l.type === 'user' && l.message?.content[0]?.type === 'tool_result');
  assert.equal(toolResult?.message?.content[0]?.content, `from-the-grammar\n${dir}`);
  assert.equal(lines.at(-1)?.type, 'result');
});

test('the single executable sandboxes as the launcher does: sandbox doctor holds every probe, network ones too', async () => {
  const executable = seaIsCurrent() ? SEA_PATH : await buildSea('ignore');
  const dir = scratchDir('agentpipe-sea-doctor-');
  const env = { PATH: SYSTEM_PATH, HOME: dir, AGENTPIPE_HOME: path.join(dir, '.agentpipe') };
  // The sandbox starts small Node programs with the program's own binary (`<binary> -e CODE`): the executable runs
  // them as node would, instead of taking -e for a flag of the CLI (its network namespace then failed to start).
  const evaluated = await runToEnd(executable, ['-e', 'console.log(process.argv.slice(1).join(" "))', 'a', 'b'], {
    cwd: dir,
    env,
  });
  assert.equal(evaluated.stdout, 'a b\n', evaluated.stderr);
  const doctor = await runToEnd(executable, ['sandbox', 'doctor', '--json'], { cwd: dir, env });
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.doesNotMatch(doctor.stderr, /network namespace could not start/);
  const report = JSON.parse(doctor.stdout) as { confined: boolean; probes: Array<{ name: string; held: boolean }> };
  assert.equal(report.confined, true);
  assert.deepEqual(
    report.probes.filter((p) => !p.held).map((p) => p.name),
    [],
  );
  assert.ok(report.probes.some((p) => p.name === 'reach a host not in allowedDomains'));
});
