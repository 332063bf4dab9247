/**
 * What the Bash permission check's grammar costs a run (issue 28, B7, goal 5), in `npm run bench` and alone as
 * `npm run bench -- parser`. Three one-prompt runs, alternating, median of 20 each, all with the same flags (the
 * default permission mode and sandbox: read-only commands run without asking, in the sandbox):
 * (a) the plain one turn, no tool;
 * (b) one Bash call of a line the fast reader judges without the grammar (src/tools/shell/fast-parse.ts);
 * (c) one Bash call of a 60-character line that needs the grammar (quotes, globs, pipes), running the same programs
 *     on the same files as (b): its globs match the two files (b) names, the only ones in its folder.
 * (w) (c) again with the add-ons off (`node --no-addons`): the grammar's WebAssembly build, which the single
 *     executable and a run whose native binding cannot load use (src/tools/shell/grammar.ts).
 * (c)/(b) is the grammar's cost (loading tree-sitter-bash and parsing); (c)/(a) is the literal ratio, which
 * also holds bash, the programs and the sandbox. Each run reads its prompt from stream-json stdin, so it is still
 * alive when its result is out: its peak RSS is its VmHWM read then (a sampled RSS misses the end of a short run).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { median } from './stats.ts';

/** The grammar's line: 60 characters, double quotes, globs, pipes and `&&`, read-only. */
export const GRAMMAR_COMMAND = 'grep -c "turns" *.json | sort -r | head -n 3 && wc -l *.json';
/** The same programs on the same files, in words the fast reader takes. */
export const FAST_COMMAND = 'grep -c "turns" a.json b.json | sort -r | head -n 3 && wc -l a.json b.json';

const USER = { type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null };
const PROMPT = `${JSON.stringify(USER)}\n`;

interface Run {
  ms: number;
  peakKb: number;
  /** The run's own CPU time (all its threads, not its children) when its result is out. */
  cpuMs: number;
  output: string;
}

/** One prompt through `node cli …args` in `cwd`: spawn → result line, and the VmHWM once the result is out. */
function runOnce(cli: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, '--input-format', 'stream-json', ...args], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    let ms = NaN;
    let peakKb = NaN;
    let cpuMs = NaN;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (!Number.isNaN(ms) || !/"type":"result"/.test(chunk)) return;
      ms = performance.now() - started;
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
      cpuMs = cpuOf(child.pid!);
      child.stdin.end();
    });
    child.on('error', reject);
    child.on('close', () => resolve({ ms, peakKb, cpuMs, output }));
    child.stdin.write(PROMPT);
  });
}

/** CPU time (ms) of every thread of `pid` so far: the first field of each thread's schedstat, in nanoseconds. */
function cpuOf(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`))
    ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}

/** The medians of one kind's runs. */
interface Figures {
  ms: number;
  kb: number;
  cpu: number;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
/** A command in a Markdown table's cell: its pipes escaped. */
const cell = (command: string) => command.replaceAll('|', '\\|');

/** The rows: (a), (b) and (c), and the two ratios of (c). `dir` is the bench's scratch folder. */
export async function benchParser(
  cli: string,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<Array<[string, string, string]>> {
  const cwd = path.join(dir, 'parser');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(path.join(cwd, 'a.json'), '{"turns": 1}\n');
  writeFileSync(path.join(cwd, 'b.json'), '{"turns": 2}\n');
  const answer = { text: 'Hello from the bench.' };
  const script = (name: string, command?: string) => {
    const file = path.join(dir, `parser-${name}.json`);
    const call = { tool_calls: [{ name: 'Bash', id: `toolu_${name}`, input: { command } }] };
    writeFileSync(file, JSON.stringify({ turns: command ? [call, answer] : [answer] }));
    return ['--model', 'scripted', '--script', file, '--output-format', 'stream-json', '--verbose'];
  };
  const kinds = { a: script('a'), b: script('b', FAST_COMMAND), c: script('c', GRAMMAR_COMMAND) };
  const kindsAll = { ...kinds, w: kinds.c };
  const wasmEnv = { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --no-addons`.trim() };
  // Both commands (and the grammar's line on either parser) must run, not be asked about, and print the same thing,
  // or the comparison is not one.
  const outputs = (['b', 'c', 'w'] as const).map((kind) => {
    const run = spawnSync(process.execPath, [cli, '-p', 'go', ...kindsAll[kind]], {
      cwd,
      env: kind === 'w' ? wasmEnv : env,
      encoding: 'utf8',
    });
    return /"tool_result","tool_use_id":"toolu_[bc]","content":("(?:[^"\\]|\\.)*"),"is_error":false/.exec(
      run.stdout,
    )?.[1];
  });
  if (!outputs[0] || outputs.some((output) => output !== outputs[0]))
    throw new Error(`bench parser: the commands differ: ${outputs}`);
  const runs = { a: [] as Run[], b: [] as Run[], c: [] as Run[], w: [] as Run[] };
  for (let i = 0; i < 21; i++) {
    for (const kind of ['a', 'b', 'c', 'w'] as const) {
      const run = await runOnce(cli, kindsAll[kind], cwd, kind === 'w' ? wasmEnv : env);
      if (i > 0) runs[kind].push(run); // the first round warms up the page cache and the CLI's code cache
    }
  }
  const [a, b, c, w] = (['a', 'b', 'c', 'w'] as const).map((kind) => ({
    ms: median(runs[kind].map((run) => run.ms)),
    kb: median(runs[kind].map((run) => run.peakKb)),
    cpu: median(runs[kind].map((run) => run.cpuMs)),
  })) as [Figures, Figures, Figures, Figures];
  const both = (x: Figures) => `${fmt(x.ms, 1)} ms, peak RSS ${fmt(x.kb / 1024, 1)} MB, CPU ${fmt(x.cpu, 1)} ms`;
  const ratios = (x: Figures, y: Figures) =>
    `${(x.ms / y.ms).toFixed(2)} × in time, ${(x.kb / y.kb).toFixed(2)} × in peak RSS, ` +
    `${(x.cpu / y.cpu).toFixed(2)} × in CPU`;
  return [
    ['parser (a): one turn, no tool, spawn → result (median of 20, runs alternating)', both(a), '1 (the baseline)'],
    [
      `parser (b): one turn with one Bash call the fast reader judges (\`${cell(FAST_COMMAND)}\`)`,
      both(b),
      `${ratios(b, a)} of (a)`,
    ],
    [
      `parser (c): the same programs, a ${GRAMMAR_COMMAND.length}-character line that needs the grammar, read by ` +
        `the native tree-sitter binding (\`${cell(GRAMMAR_COMMAND)}\`)`,
      both(c),
      `the grammar's cost (c)/(b): ${ratios(c, b)}; (c)/(a): ${ratios(c, a)}`,
    ],
    [
      'parser (w): (c) with the add-ons off (`--no-addons`): the WebAssembly grammar, as in the single executable',
      both(w),
      `(w)/(b): ${ratios(w, b)}; (w)/(c): ${ratios(w, c)}`,
    ],
  ];
}
