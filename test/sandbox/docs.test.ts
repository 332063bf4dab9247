/**
 * docs/security.md: its network and exclusion examples run as written, through the real CLI. The
 * settings blocks are the doc's own; the Bash calls are its `$` lines (the doc's ports 8080 and
 * 5432 become two servers on this machine's loopback at ports of their own).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import { ROOT } from '../helpers/cli.ts';
import { ofType, runScripted, toolResults } from '../helpers/agent-run.ts';
import { tempDir } from '../helpers/workspace.ts';

const DOC = readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8');

/** The code blocks of a language under the section `heading`, in order. */
function blocks(heading: string, lang: string): string[] {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, heading);
  const end = DOC.indexOf('\n## ', start + 1);
  const section = DOC.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/** A console block as calls: each `$ ` line and the lines after it up to the next one. */
function calls(block: string): Array<{ command: string; expected: string[] }> {
  const out: Array<{ command: string; expected: string[] }> = [];
  for (const line of block.trimEnd().split('\n')) {
    if (line.startsWith('$ ')) out.push({ command: line.slice(2), expected: [] });
    else out.at(-1)!.expected.push(line);
  }
  return out;
}

/** A server on this machine's loopback answering every request with `text`. */
async function server(text: string): Promise<{ port: number; close(): void }> {
  const s = http.createServer((_req, res) => res.end(`${text}\n`));
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  return { port: (s.address() as { port: number }).port, close: () => s.close() };
}

const bash = (command: string) => ({ tool_calls: [{ name: 'Bash', input: { command } }] });

test('docs/security.md: the network example gives the results it shows', async () => {
  const [settings] = blocks('Network: allowed hosts through the egress proxy', 'json');
  const [session] = blocks('Network: allowed hosts through the egress proxy', 'console');
  const dev = await server('hello from the dev server');
  const database = await server('the host database');
  const ports = (text: string) =>
    text.replaceAll('127.0.0.1:8080', `127.0.0.1:${dev.port}`).replace(/\b5432\b/g, String(database.port));
  try {
    const steps = calls(ports(session!));
    assert.equal(steps.length, 5);
    const run = await runScripted(
      tempDir(),
      [...steps.map((s) => bash(s.command)), { text: 'done' }],
      ['--permission-mode', 'bypassPermissions', '--settings', ports(settings!)],
      { timeoutMs: 90_000 },
    );
    assert.equal(run.code, 0, run.stderr);
    const results = [...toolResults(run.lines).values()].map((r) => String(r.content).split('\n'));
    assert.equal(results.length, steps.length);
    steps.forEach((step, i) => {
      const got = results[i]!;
      assert.equal(got.length, step.expected.length, `${step.command}:\n${got.join('\n')}`);
      step.expected.forEach((want, j) => {
        // A shown line ending in … is shortened: the result's line starts with the rest.
        if (want.endsWith(' …')) assert.ok(got[j]!.startsWith(want.slice(0, -2)), `${step.command}: ${got[j]}`);
        else assert.equal(got[j], want, step.command);
      });
    });
    const refusals = run.stderr.split('\n').filter((l) => l.includes("refused a sandboxed command's connection"));
    assert.equal(refusals.length, 3, run.stderr);
  } finally {
    dev.close();
    database.close();
  }
});

test('docs/security.md: the excludedCommands example runs where it says', async () => {
  const [settings] = blocks('Commands outside the sandbox', 'json');
  const [session] = blocks('Commands outside the sandbox', 'console');
  const dir = tempDir();
  const outside = tempDir();
  const bin = tempDir();
  mkdirSync(path.join(dir, 'sub'));
  // A docker that says where it ran: outside the sandbox it can write a folder outside the working one.
  const log = path.join(dir, 'where.log');
  writeFileSync(
    path.join(bin, 'docker'),
    `#!/bin/sh\nif touch '${outside}/probe' 2>/dev/null; then w=outside; else w=inside; fi\n` +
      `echo "$w" >> '${log}'\necho "$w"\n`,
  );
  chmodSync(path.join(bin, 'docker'), 0o755);
  const lines = session!
    .trimEnd()
    .split('\n')
    .map((line) => /^\$ (.*?)\s+# (outside|in the workspace sandbox)\b/.exec(line)!);
  assert.equal(lines.length, 5);
  const run = await runScripted(
    dir,
    [...lines.map((m) => bash(m[1]!)), { text: 'done' }],
    ['--permission-mode', 'bypassPermissions', '--settings', settings!],
    { env: { PATH: `${bin}:${process.env.PATH}` }, timeoutMs: 90_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  const results = [...toolResults(run.lines).values()];
  assert.deepEqual(
    results.map((r) => r.is_error ?? false),
    lines.map(() => false),
    JSON.stringify(results),
  );
  // Each docker run logged where it was: one line per docker of each call, in order.
  const where = readFileSync(log, 'utf8').trim().split('\n');
  const expected = lines.flatMap((m) => {
    const runs = m[1]!.split('docker').length - 1;
    return Array<string>(runs).fill(m[2] === 'outside' ? 'outside' : 'inside');
  });
  assert.deepEqual(where, expected);
  assert.equal(ofType(run.lines, 'result')[0]!.subtype, 'success');
});

test('docs/security.md: the allowWrite example lets git commit, and the hooks stay read-only', async () => {
  const [settings] = blocks('Layer 2: the OS sandbox (`src/sandbox/`)', 'json');
  const dir = tempDir();
  execFileSync('git', ['init', '-q', dir]);
  writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  const git = 'git -c user.email=a@b -c user.name=a';
  const commands = [
    `${git} add a.txt && ${git} commit -qm first 2>&1; echo "commit=$?"`,
    'echo x > .git/hooks/pre-commit 2>&1; echo "hook=$?"',
  ];
  const bypass = ['--permission-mode', 'bypassPermissions'];
  const without = await runScripted(dir, [...commands.map(bash), { text: 'done' }], bypass);
  const opened = await runScripted(
    dir,
    [...commands.map(bash), { text: 'done' }],
    [...bypass, '--settings', settings!],
  );
  const texts = (run: typeof without) => [...toolResults(run.lines).values()].map((r) => JSON.stringify(r.content));
  const [before, hookBefore] = texts(without);
  const [after, hookAfter] = texts(opened);
  assert.match(before!, /commit=[1-9]/, 'without it the git folder is read-only');
  assert.match(before!, /index\.lock': Read-only file system/);
  assert.match(after!, /commit=0/, 'with it git commits');
  for (const hook of [hookBefore, hookAfter]) assert.match(hook!, /hook=[1-9]/);
  assert.equal(execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }), 'first\n');
});
