/**
 * A saved session named by a unique start of its id, through the real CLI: `--resume <prefix>`, `view <prefix>`
 * and `sessions <prefix>` take it; an ambiguous prefix is one line listing the candidates; one that names no session
 * is one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, type RunResult } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const FIRST = 'aaaa1111-0000-4000-8000-000000000001';
const SECOND = 'aaaa2222-0000-4000-8000-000000000002';
const THIRD = 'bbbb3333-0000-4000-8000-000000000003';

/** One line on stderr, exit 1, nothing on stdout. */
function oneLine(run: RunResult, pattern: RegExp): void {
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr.split('\n').filter(Boolean).length, 1, run.stderr);
  assert.match(run.stderr, pattern);
}

test('--resume and view take a unique start of a session id; ambiguous and unknown ones are one line', async () => {
  const home = tempDir();
  const dir = tempDir();
  const env = { AGENTPIPE_HOME: home };
  const script = writeScript(dir, [{ text: 'Saved.' }]);
  const args = ['--model', 'scripted', '--script', script];
  for (const id of [FIRST, SECOND, THIRD]) {
    const run = await runCli(['-p', `hello ${id}`, ...args, '--session-id', id], { cwd: dir, env });
    assert.equal(run.code, 0, run.stderr);
  }

  // A unique start (any case) resumes that session: the same id, its history before the new prompt.
  const stream = ['--output-format', 'stream-json', '--verbose'];
  const resumed = await runCli(['-p', 'again', ...args, ...stream, '--resume', 'BBBB3'], { cwd: dir, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  const result = parseLines(resumed.stdout).at(-1)!;
  assert.equal(result.type, 'result');
  assert.equal(result.session_id, THIRD);
  const transcript = readFileSync(path.join(home, 'projects', readdirOne(home), `${THIRD}.jsonl`), 'utf8');
  assert.match(transcript, new RegExp(`hello ${THIRD}[\\s\\S]*again`));

  // Ambiguous: one line with the candidates; none: one line; not an id at all: one line.
  const ambiguous = new RegExp(`session id prefix aaaa is ambiguous: ${FIRST}, ${SECOND} \\(give more of the id\\)`);
  oneLine(await runCli(['-p', 'x', ...args, '--resume', 'aaaa'], { cwd: dir, env }), ambiguous);
  oneLine(
    await runCli(['-p', 'x', ...args, '--resume', 'cccc'], { cwd: dir, env }),
    /^agentpipe: error: --resume: no saved session has an id starting with cccc \(agentpipe sessions lists/,
  );
  oneLine(
    await runCli(['-p', 'x', ...args, '--resume', 'not-an-id'], { cwd: dir, env }),
    /--resume expects a session id \(a UUID, or a unique start of one\) or a \.jsonl file, got not-an-id/,
  );

  // view: the same names, from any folder.
  const out = path.join(dir, 'page.html');
  const view = await runCli(['view', 'aaaa2', '--export', out], { cwd: tempDir(), env });
  assert.equal(view.code, 0, view.stderr);
  assert.match(view.stderr, new RegExp(`wrote ${out.replace(/[.]/g, '\\.')} \\(\\d+ messages\\)`));
  assert.ok(existsSync(out));
  assert.match(readFileSync(out, 'utf8'), new RegExp(`hello ${SECOND}`));
  oneLine(await runCli(['view', 'aaaa', '--export', out], { cwd: dir, env }), ambiguous);
  oneLine(
    await runCli(['view', 'cccc', '--export', out], { cwd: dir, env }),
    /^agentpipe: error: no saved session has an id starting with cccc/,
  );
});

test('sessions <prefix> shows one session (from any folder); ambiguous, unknown and non-ids are one line', async () => {
  const home = tempDir();
  const dir = tempDir();
  const env = { AGENTPIPE_HOME: home };
  const script = writeScript(dir, [{ text: 'Saved.' }]);
  for (const id of [FIRST, SECOND]) {
    const run = await runCli(['-p', `hello ${id}`, '--model', 'scripted', '--script', script, '--session-id', id], {
      cwd: dir,
      env,
    });
    assert.equal(run.code, 0, run.stderr);
  }
  const elsewhere = tempDir();
  const shown = await runCli(['sessions', 'AAAA2'], { cwd: elsewhere, env });
  assert.equal(shown.code, 0, shown.stderr);
  const lines = shown.stdout.trimEnd().split('\n');
  assert.deepEqual(
    lines.map((line) => line.slice(0, 13).trim()),
    ['session', 'folder', 'started', 'updated', 'turns', 'cost', 'first prompt', 'transcript', 'resume'],
  );
  assert.equal(lines[0], `session      ${SECOND}`);
  assert.equal(lines[4], 'turns        1');
  assert.equal(lines[6], `first prompt hello ${SECOND}`);
  assert.equal(lines[8], `resume       agentpipe --resume ${SECOND}`);
  const json = await runCli(['sessions', 'aaaa1', '--json'], { cwd: elsewhere, env });
  assert.equal(json.code, 0, json.stderr);
  const summary = JSON.parse(json.stdout) as { sessionId: string; turns: number; firstPrompt: string };
  assert.deepEqual([summary.sessionId, summary.turns, summary.firstPrompt], [FIRST, 1, `hello ${FIRST}`]);

  oneLine(
    await runCli(['sessions', 'aaaa'], { cwd: dir, env }),
    new RegExp(`^agentpipe: error: session id prefix aaaa is ambiguous: ${FIRST}, ${SECOND} \\(give more of the id\\)`),
  );
  oneLine(
    await runCli(['sessions', 'cccc'], { cwd: dir, env }),
    /^agentpipe: error: no saved session has an id starting with cccc/,
  );
  oneLine(
    await runCli(['sessions', 'not-an-id'], { cwd: dir, env }),
    /^agentpipe: error: not-an-id is not a session id or the start of one/,
  );
});

/** The one project folder under `home`. */
function readdirOne(home: string): string {
  const [only, ...rest] = readdirSync(path.join(home, 'projects'));
  assert.equal(rest.length, 0);
  return only!;
}
