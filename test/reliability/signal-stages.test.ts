/**
 * A signal at any moment of a print run gives its prompt exactly one result, last, in json and in
 * stream-json, and the exit code 128 + the signal's number (issue 28, B12: a signal in the first
 * 25-350 ms killed the process with no output). Each case stops the run at a named point, not
 * after a sleep: the start-up stages through the AGENTPIPE_TEST_SIGNAL hook (from the launcher's
 * first line on), a prompt still being read from stdin, and the run's own stages through the
 * process itself (`kill $PPID` from a SessionStart hook, a Bash call, a SessionEnd hook after the
 * result). The signal of each case comes from a seeded PRNG; every run leaves no lock behind.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseLines, startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { random } from '../faults/engine.ts';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
const FORMATS = ['json', 'stream-json'] as const;
type Signal = (typeof SIGNALS)[number];

/** Where the run is stopped: by the test hook at a start-up stage, or by the run's own process (`kill $PPID`). */
type Stage =
  | { name: string; hook: string; stdinOpen?: boolean }
  | { name: string; hookEvent: 'SessionStart' | 'SessionEnd' }
  | { name: string; tool: true };

const STAGES: Stage[] = [
  { name: 'the launcher loading the CLI', hook: 'launcher' },
  { name: 'the entry starting', hook: 'entry' },
  { name: 'the flags read', hook: 'options' },
  { name: 'the prompt still being read from stdin', hook: 'options', stdinOpen: true },
  { name: 'the prompt read', hook: 'input' },
  { name: 'the session open', hook: 'session' },
  { name: 'the prompt starting (SessionStart hook)', hookEvent: 'SessionStart' },
  { name: 'a tool running', tool: true },
  { name: 'the session closing after the result (SessionEnd hook)', hookEvent: 'SessionEnd' },
];

const rnd = random(1228);

async function stopAt(stage: Stage, format: (typeof FORMATS)[number], signal: Signal) {
  const dir = tempDir();
  const home = tempDir();
  const stopMe = `kill -s ${signal.slice(3)} $PPID`;
  // The run lasts until the signal (a tool that sleeps), except the one stopped after its result.
  const command =
    'tool' in stage
      ? `${stopMe}; sleep 5`
      : 'hookEvent' in stage && stage.hookEvent === 'SessionEnd'
        ? 'true'
        : 'sleep 5';
  const script = writeScript(dir, [
    {
      text: 'Looking.',
      tool_calls: [{ name: 'Bash', input: { command } }],
    },
    { text: 'Done.' },
  ]);
  const hooks =
    'hookEvent' in stage ? { [stage.hookEvent]: [{ hooks: [{ type: 'command', command: stopMe }] }] } : undefined;
  const args = [
    '-p',
    ...(stage.name.includes('stdin') ? [] : ['go']),
    '--model',
    'scripted',
    '--script',
    script,
    '--output-format',
    format,
    '--verbose',
    '--permission-mode',
    'bypassPermissions',
    // `kill $PPID` must reach agentpipe: inside the OS sandbox (its own pid namespace) it cannot, by design.
    '--sandbox',
    'off',
    ...(hooks ? ['--settings', JSON.stringify({ hooks })] : []),
  ];
  const child = startCli(args, {
    cwd: dir,
    env: { AGENTPIPE_HOME: home, ...('hook' in stage ? { AGENTPIPE_TEST_SIGNAL: `${signal}@${stage.hook}` } : {}) },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  if ('hook' in stage && stage.stdinOpen) child.stdin!.write('a prompt that never ends');
  else child.stdin!.end();
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  child.stdin!.destroy();
  const locks = readdirSync(home, { recursive: true }).filter((f) => String(f).endsWith('.lock'));
  return { stdout, stderr, code, locks: locks.map((f) => path.join(home, String(f))) };
}

// Three runs at a time: each waits on its own process.
describe('a signal at each stage of a print run', { concurrency: 3 }, () => {
  for (const stage of STAGES) {
    for (const format of FORMATS) {
      const signal = SIGNALS[Math.floor(rnd() * SIGNALS.length)]!;
      test(`${signal} at ${stage.name} (${format}): one result, last; exit ${CODES[signal]}`, async () => {
        const run = await stopAt(stage, format, signal);
        const where = `stdout: ${run.stdout.slice(-600)}\nstderr: ${run.stderr}`;
        const lines =
          format === 'json' ? (JSON.parse(run.stdout) as Array<Record<string, any>>) : parseLines(run.stdout);
        assert.equal(lines.filter((l) => l.type === 'result').length, 1, where);
        // The result is last; only the SessionEnd hook's own lines may follow it (as they do without a signal).
        const after = lines.slice(lines.findIndex((l) => l.type === 'result') + 1);
        assert.ok(
          after.every((l) => l.type === 'system' && l.hook_event === 'SessionEnd'),
          where,
        );
        assert.equal(run.code, CODES[signal], where);
        assert.deepEqual(run.locks, [], 'the session lock was left behind');
        const result = lines.find((l) => l.type === 'result')!;
        const afterResult = 'hookEvent' in stage && stage.hookEvent === 'SessionEnd';
        assert.equal(result.subtype, afterResult ? 'success' : 'error_during_execution', where);
      });
    }
  }
});
