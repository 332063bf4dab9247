/**
 * docs/failure-modes.md: its examples run as written (bash, with this repository's launcher as
 * `agentpipe`) and print what the page shows; every test file the table names exists.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';

const DOC = readFileSync(path.join(ROOT, 'docs/failure-modes.md'), 'utf8');
/** The examples: each bash block with the text block after it. */
const examples = [...DOC.matchAll(/```bash\n([\s\S]*?)```\s*\n```text\n([\s\S]*?)```/g)].map((m) => ({
  script: m[1]!,
  shown: m[2]!,
}));

function bash(script: string, cwd: string, bin: string): Promise<{ stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', script], {
    cwd,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', () => resolve({ stdout, stderr })));
}

test('docs/failure-modes.md: the examples print what the page shows', async () => {
  assert.equal(examples.length, 2);
  const bin = tempDir();
  writeFileSync(path.join(bin, 'agentpipe'), `#!/bin/sh\nexec '${path.join(ROOT, 'agentpipe')}' "$@"\n`, {
    mode: 0o755,
  });
  for (const { script, shown } of examples) {
    const cwd = tempDir();
    const { stdout, stderr } = await bash(script, cwd, bin);
    assert.equal(stdout, shown, `${script}\nstderr: ${stderr}`);
  }
  const home = await bash(examples[0]!.script, tempDir(), bin);
  const lines = home.stderr.split('\n');
  assert.equal(lines.length, 2, `one line: ${home.stderr}`);
  assert.match(
    lines[0]!,
    /^agentpipe: warning: the transcript is off: cannot write \/dev\/null\/home\/projects\/.*\.jsonl: /,
  );
  assert.match(
    lines[0]!,
    /: \/dev\/null is a file, not a folder; this session is not saved \(--resume cannot continue it\)$/,
  );
});

test('docs/failure-modes.md: every test the table names exists', () => {
  const rows = DOC.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| case'));
  const named = rows.flatMap((row) =>
    row
      .split('|')
      .at(-2)!
      .split(',')
      .map((name) => name.trim().split(' ')[0]!)
      // A row no test covers yet says so with a dash.
      .filter((name) => name !== '—'),
  );
  assert.ok(named.length >= 15);
  for (const name of named) {
    const file = ['test', 'unit.test'].map((kind) => path.join(ROOT, 'test', `${name}.${kind}.ts`)).find(existsSync);
    assert.ok(file, `${name}: no test/${name}.test.ts`);
  }
});
