/**
 * The shell parser costs what it should (issue 28, B7): a run whose Bash command needs the
 * tree-sitter-bash grammar (globs: too much for the fast reader) peaks under 1.5 × the memory of
 * the same run without it. Before the grammar's WebAssembly was kept at V8's baseline compiler
 * (src/process/wasm-tier-up.ts), V8 optimised it on the first long command: 585 MB against 65 MB. A run reads
 * lines with the native binding (src/tools/shell/grammar.ts), and with the WebAssembly build when add-ons cannot
 * load: both are measured.
 * Nothing here is timed: each run's peak (VmHWM) is read once its result is out, before it exits.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

/** 60 characters with globs, read-only: the grammar reads it (bench/parser.ts times a line like it). */
const GRAMMAR_COMMAND = 'grep -c "turns" *.json && ls -la | head -n 3 && wc -l *.json';

/** Runs one prompt on `turns` in stream-json; the process's peak RSS (MB) once the result is out, and its lines. */
async function peakOf(
  dir: string,
  turns: unknown[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ peakMb: number; lines: Array<Record<string, any>> }> {
  const script = writeScript(dir, turns, `script-${turns.length}.json`);
  const child = startCli(['--input-format', 'stream-json', '--sandbox', 'off', ...scriptedStreamArgs(script)], {
    cwd: dir,
    env,
  });
  const lines: Array<Record<string, any>> = [];
  let buffer = '';
  const result = new Promise<number>((resolve) =>
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
        const line = JSON.parse(buffer.slice(0, at)) as Record<string, any>;
        buffer = buffer.slice(at + 1);
        lines.push(line);
        if (line.type !== 'result') continue;
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        resolve(Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024);
      }
    }),
  );
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.stdin!.write(
    `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null })}\n`,
  );
  const peakMb = await result;
  child.stdin!.end();
  await closed;
  return { peakMb, lines };
}

test(
  'a run whose Bash command loads the grammar peaks under 1.5 × a plain run (B7)',
  { skip: process.platform === 'linux' ? false : 'reads /proc' },
  async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a.json'), '{"turns": 1}\n');
    const plainTurn = [{ text: 'hello' }];
    const bashTurns = [
      { tool_calls: [{ name: 'Bash', id: 'toolu_g', input: { command: GRAMMAR_COMMAND } }] },
      ...plainTurn,
    ];
    // The least of two runs each: a collection that comes late raises one run's peak, never lowers it.
    const plain = Math.min((await peakOf(dir, plainTurn)).peakMb, (await peakOf(dir, plainTurn)).peakMb);
    // The native binding, then the WebAssembly build it falls back to when add-ons cannot load (as in the single
    // executable): the one V8 used to optimise.
    for (const [parser, env] of [
      ['native', {}],
      ['WebAssembly', { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --no-addons` }],
    ] as const) {
      const first = await peakOf(dir, bashTurns, env);
      const grammar = Math.min(first.peakMb, (await peakOf(dir, bashTurns, env)).peakMb);
      const answer = first.lines.find((l) => l.type === 'user' && Array.isArray(l.message.content));
      assert.match(
        JSON.stringify(answer?.message.content ?? ''),
        /a\.json/,
        `the command ran without asking (read-only), ${parser} grammar`,
      );
      assert.ok(
        grammar < plain * 1.5,
        `peak ${grammar.toFixed(1)} MB with the ${parser} grammar, ${plain.toFixed(1)} MB without`,
      );
    }
  },
);
