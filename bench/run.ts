/**
 * `npm run bench`: end-to-end figures, each as a ratio to a baseline measured in the same run.
 * 1. Delta throughput: the scripted model streams N one-character deltas → stream-json with
 *    partial messages → a pipe, against JSON.stringify + backpressured write of N equal lines; and
 *    with telemetry on (OTLP to a loopback collector) as a ratio to the same run with it off.
 * 2. Startup: spawn → first `system/init` line and → `result` line of a one-turn run (median of 20,
 *    each beside a `node -e ''`), against spawn → exit of `node -e ''`; and the first run after a
 *    build, before the CLI has its code cache (the bench has its own AGENTPIPE_HOME).
 *    And the grammar's cost (bench/parser.ts): the one turn, the same with a Bash line the fast reader judges, and
 *    with a 60-character line that needs tree-sitter-bash running the same programs: time and peak RSS.
 * 3. Peak RSS of a one-turn run, and of BENCH_SLOW_DELTAS (1,000,000) deltas into a consumer that
 *    reads slowly (memory must stay flat), against the RSS of `node -e ''`.
 * 4. The same through the real providers (Anthropic Messages SSE, OpenAI-compatible chat
 *    completions SSE) against local servers started here (child processes): one turn (each run
 *    beside a scripted one) and delta throughput, as ratios to the scripted model; and beside them
 *    a bare node:http POST in a fresh node against the same server: the part of a provider run's
 *    extra time that is Node's own HTTP client, not agentpipe.
 * 5. A 200-turn tool loop (each turn one Read): the cost of a turn over the last 50 turns against turns 5-55;
 *    and 10,000 prompts in one stream-json process: the cost of a prompt over the last 1,000 against prompts 500-1,500.
 * 7. The cluster (bench/cluster.ts): sessions/s and prompt → first delta (p50, p99) through Redis
 *    with 1, 2 and 4 workers, against the single-process `serve` (skipped without redis-server).
 * 8. `agentpipe exec` beside `codex exec` (bench/codex.ts): spawn → the first `item.completed` of the
 *    answer, against the same local server.
 * 9. Tapes (bench/tapes.ts): a 10,000-event tape replayed, spawn → result, beside the same scripted session.
 * 10. The single executable (bench/sea.ts): the one turn of 2., spawn → result and peak RSS, beside the launcher's.
 * 11. The sandbox (benchSandbox): a one-turn Bash run in it and with --sandbox off, and with the egress proxy
 *    (with the median of the paired differences and the load average: the machine may be shared).
 * 6. Harness overhead: Claude Code (the pinned CLI of test/harness/clis) answering 5,000 deltas from
 *    the local Anthropic server, alone to a pipe against the same run through `--harness claude`:
 *    wall time (median of 5) and agentpipe's own peak RSS on top of the wrapped CLI.
 * `npm run bench -- codex tapes parser sea sandbox` runs only the sections named (8., 9., the grammar's rows of 2.,
 * 10., 11.).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { providerServer, providerServerProcess } from './providers.ts';
import { benchCluster, SEQUENTIAL } from './cluster.ts';
import { benchCodexExec } from './codex.ts';
import { benchParser } from './parser.ts';
import { benchSandboxCommand } from './sandbox-command.ts';
import { benchSea } from './sea.ts';
import { benchTapes } from './tapes.ts';
import { median } from './stats.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'bin/agentpipe.js');
const DELTAS = Number(process.env.BENCH_DELTAS ?? 1_000_000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-bench-'));
// Its own agentpipe home: transcripts and the CLI's code cache start empty (see the cold row).
const env = { ...process.env, ANTHROPIC_API_KEY: '', AGENTPIPE_HOME: path.join(dir, 'home') };

function script(name: string, turns: unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

/** Runs a command, reading stdout with an optional per-chunk pause; returns timings and peak RSS. */
function measure(
  args: string[],
  options: {
    pauseMs?: number;
    marks?: RegExp[];
    env?: NodeJS.ProcessEnv;
    lineTimes?: RegExp;
    file?: string;
    cwd?: string;
    /** A file to read stdin from (stdin is empty without it). */
    stdin?: string;
  } = {},
) {
  return new Promise<{ ms: number; bytes: number; lines: number; marks: number[]; peakRssKb: number; times: number[] }>(
    (resolve, reject) => {
      const times: number[] = [];
      const stdin = options.stdin ? openSync(options.stdin, 'r') : undefined;
      const started = performance.now();
      const child = spawn(options.file ?? process.execPath, args, {
        cwd: options.cwd ?? dir,
        env: { ...env, ...options.env },
        stdio: [stdin ?? 'ignore', 'pipe', 'inherit'],
      });
      if (stdin !== undefined) closeSync(stdin); // the child has its own copy
      const stdout = child.stdout!;
      const marks: number[] = [];
      let bytes = 0;
      let lines = 0;
      let peak = 0;
      let pending = '';
      const poll = setInterval(() => {
        try {
          const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m) peak = Math.max(peak, Number(m[1]));
        } catch {}
      }, 20);
      stdout.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        // indexOf, not a loop over the bytes: that cost the bench a second per million lines.
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
        if (options.lineTimes) {
          const now = performance.now() - started;
          for (const match of chunk.toString().matchAll(new RegExp(options.lineTimes, 'g'))) if (match) times.push(now);
        }
        if (options.marks && marks.length < options.marks.length) {
          pending += chunk.toString();
          while (marks.length < options.marks.length && options.marks[marks.length]!.test(pending))
            marks.push(performance.now() - started);
        }
        if (options.pauseMs) {
          stdout.pause();
          setTimeout(() => stdout.resume(), options.pauseMs);
        }
      });
      child.on('error', reject);
      child.on('close', () => {
        clearInterval(poll);
        resolve({ ms: performance.now() - started, bytes, lines, marks, peakRssKb: peak, times });
      });
    },
  );
}

/** The baseline writer: N JSON lines the size of the CLI's, written with backpressure into a pipe. */
async function baselineWrite(count: number, sample: object): Promise<number> {
  const started = performance.now();
  const sink = spawn('sh', ['-c', 'cat > /dev/null'], { stdio: ['pipe', 'ignore', 'inherit'] });
  for (let i = 0; i < count; i++) {
    const line = JSON.stringify({ ...sample, n: i }) + '\n';
    if (!sink.stdin.write(line)) await new Promise((r) => sink.stdin.once('drain', r));
  }
  sink.stdin.end();
  await new Promise((r) => sink.on('close', r));
  return performance.now() - started;
}

/**
 * A fresh `node` that POSTs a one-message request to BENCH_URL with Node's own HTTP client and reads
 * the whole answer: the part of a provider run that is Node's, not agentpipe's.
 */
const BARE_POST = `
const http = process.getBuiltinModule('node:http');
const messages = [{ role: 'user', content: 'hi' }];
const body = JSON.stringify({ model: 'bench', max_tokens: 1024, stream: true, messages });
const headers = { 'content-type': 'application/json' };
const request = http.request(process.env.BENCH_URL, { method: 'POST', headers }, (res) => {
  res.on('data', () => {});
  res.on('end', () => process.getBuiltinModule('node:fs').writeSync(1, 'answered\\n'));
});
request.end(body);
`;

/** The same line from a fresh `node` without the POST: both are timed to the line, not to the exit. */
const NO_POST = "process.getBuiltinModule('node:fs').writeSync(1, 'answered\\n');";

/**
 * The delta run with telemetry off and on (OTLP traces and metrics to a collector on loopback that answers every
 * export), alternating, 3 each: the medians of their times.
 */
async function telemetryDeltaRuns(args: string[]): Promise<{ off: number; on: number }> {
  const { createServer } = await import('node:http');
  const collector = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const address = collector.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const on = {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
  };
  const off: number[] = [];
  const traced: number[] = [];
  for (let i = 0; i < 3; i++) {
    off.push((await measure(args)).ms);
    traced.push((await measure(args, { env: on })).ms);
  }
  collector.close();
  return { off: median(off), on: median(traced) };
}

/**
 * One turn with `--otel` and no collector listening, and the same without `--otel`, alternating, 3 each: the medians
 * of their times to the exit (the end waits a bounded time for the exporters; it says so on stderr, shown here).
 */
async function noCollectorRuns(args: string[]): Promise<{ off: number; on: number }> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => probe.close(resolve)); // nothing listens there now
  const on = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
  const off: number[] = [];
  const traced: number[] = [];
  for (let i = 0; i < 3; i++) {
    off.push((await measure(args)).ms);
    traced.push((await measure([...args, '--otel'], { env: on })).ms);
  }
  return { off: median(off), on: median(traced) };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

/** The one-turn run of 2. (and of the single executable's rows), answered from `oneTurn`. */
function oneTurnArgs(oneTurn = script('one-turn.json', [{ text: 'Hello from the bench.' }])): string[] {
  return [CLI, '-p', 'hi', '--model', 'scripted', '--script', oneTurn, '--output-format', 'stream-json', '--verbose'];
}

async function main() {
  const oneTurn = script('one-turn.json', [{ text: 'Hello from the bench.' }]);
  const turnArgs = oneTurnArgs(oneTurn);
  // The first run after a build: no code cache of the CLI's entry yet (bin/agentpipe.js writes it).
  const cold = await measure(turnArgs, { marks: [/"type":"result"/] });
  const coldFloor = (await measure(['-e', ''])).ms;
  const stream = script('deltas.json', [{ text: 'x'.repeat(DELTAS), chunk_size: 1 }]);
  const deltaArgs = [
    CLI,
    '-p',
    'go',
    '--model',
    'scripted',
    '--script',
    stream,
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-partial-messages',
  ];
  const run = await measure(deltaArgs);
  const sample = {
    type: 'stream_event',
    event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } },
    parent_tool_use_id: null,
    session_id: '00000000-0000-0000-0000-000000000000',
    uuid: '00000000-0000-0000-0000-000000000000',
  };
  const baseMs = await baselineWrite(DELTAS, sample);
  const telemetry = await telemetryDeltaRuns(deltaArgs);
  const noCollector = await noCollectorRuns(turnArgs);
  const cliRate = DELTAS / (run.ms / 1000);
  const baseRate = DELTAS / (baseMs / 1000);

  const inits: number[] = [];
  const results: number[] = [];
  const turnRss: number[] = [];
  const floors: number[] = [];
  // 20 runs, each beside a `node -e ''`: on a busy machine 10 moved the ratio by 0.3.
  for (let i = 0; i < 20; i++) {
    const r = await measure(turnArgs, { marks: [/"subtype":"init"/, /"type":"result"/] });
    inits.push(r.marks[0]!);
    results.push(r.marks[1]!);
    turnRss.push(r.peakRssKb);
    floors.push((await measure(['-e', ''])).ms);
  }
  const floor = median(floors);

  const sandboxRows = await benchSandbox();
  const SLOW_DELTAS = Number(process.env.BENCH_SLOW_DELTAS ?? 1_000_000);
  const slow = await measure(
    deltaArgs.map((a) => (a === stream ? script('slow.json', [{ text: 'x'.repeat(SLOW_DELTAS), chunk_size: 1 }]) : a)),
    { pauseMs: 5 },
  );
  const floorRss = (await measure(['-e', 'setTimeout(() => {}, 200)'])).peakRssKb;

  // The real providers against local servers speaking their wire formats.
  const PROVIDER_DELTAS = Number(process.env.BENCH_PROVIDER_DELTAS ?? DELTAS);
  const providers = [
    {
      name: 'Anthropic',
      server: await providerServerProcess('anthropic'),
      args: ['--model', 'claude-sonnet-4-6'],
      path: '/v1/messages',
      env: (url: string) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-bench-0123456789' }),
    },
    {
      name: 'OpenAI-compatible',
      server: await providerServerProcess('openai'),
      args: ['--model', 'bench', '--provider', 'openai'],
      path: '/chat/completions',
      env: (url: string) => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-bench-0123456789' }),
    },
  ];
  const providerRows: Array<[string, string, string]> = [];
  const scriptedRate = cliRate;
  for (const p of providers) {
    const args = [
      CLI,
      '-p',
      'hi',
      ...p.args,
      '--output-format',
      'stream-json',
      '--verbose',
      '--no-session-persistence',
    ];
    const env = p.env(p.server.url);
    await p.server.setDeltas(1);
    await measure(args, { env }); // the server's first answer (its code not yet optimized) is not agentpipe's
    // Each provider run beside a scripted one: the ratio is taken under the same load. Beside them
    // too, Node's HTTP client alone (a bare POST in a fresh node) and the same node without the
    // POST: what a provider run adds to a scripted one that is not Node's own.
    const turns: number[] = [];
    const beside: number[] = [];
    const rss: number[] = [];
    const bare: number[] = [];
    const bareFloors: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await measure(args, { marks: [/"type":"result"/], env });
      turns.push(r.marks[0] ?? r.ms);
      rss.push(r.peakRssKb);
      // Like the provider run, without a transcript.
      const s = await measure([...turnArgs, '--no-session-persistence'], { marks: [/"type":"result"/] });
      beside.push(s.marks[0] ?? s.ms);
      const b = await measure(['-e', BARE_POST], { marks: [/^answered$/m], env: { BENCH_URL: p.server.url + p.path } });
      bare.push(b.marks[0] ?? b.ms);
      const f = await measure(['-e', NO_POST], { marks: [/^answered$/m] });
      bareFloors.push(f.marks[0] ?? f.ms);
    }
    const httpMs = median(bare) - median(bareFloors);
    const ownMs = median(turns) - median(beside) - httpMs;
    await p.server.setDeltas(PROVIDER_DELTAS);
    const stream = await measure([...args, '--include-partial-messages'], { env });
    const rate = PROVIDER_DELTAS / (stream.ms / 1000);
    providerRows.push(
      [
        `${p.name}: spawn → result, one turn (median of 10)`,
        `${fmt(median(turns), 1)} ms, peak RSS ${fmt(median(rss) / 1024, 1)} MB`,
        `${(median(turns) / median(beside)).toFixed(2)} × the scripted model's one turn ` +
          `(${fmt(median(beside), 1)} ms in runs beside these); agentpipe's own part of the difference ` +
          `${fmt(ownMs, 1)} ms`,
      ],
      [
        `${p.name}: Node's HTTP client alone: a bare node:http POST in a fresh node, spawn → answer (median of 10)`,
        `${fmt(median(bare), 1)} ms, ${fmt(httpMs, 1)} ms above the same node without it ` +
          `(${fmt(median(bareFloors), 1)} ms)`,
        `${((median(beside) + httpMs) / median(beside)).toFixed(2)} × the scripted one turn: the least a provider ` +
          `run on node:http can take`,
      ],
      [
        `${p.name}: delta events/s end to end`,
        `${fmt(rate)} /s (${fmt(PROVIDER_DELTAS)} deltas, peak RSS ${fmt(stream.peakRssKb / 1024, 1)} MB)`,
        `${(rate / scriptedRate).toFixed(2)} × the scripted model's rate`,
      ],
    );
    await p.server.close();
  }

  // Harness overhead: the wrapped CLI alone, and through agentpipe (same server, same deltas).
  const harnessRows: Array<[string, string, string]> = [];
  const claude = path.join(ROOT, 'test/harness/clis/node_modules/.bin/claude');
  if (existsSync(claude)) {
    const server = await providerServer('anthropic', () => 5000);
    const home = mkdtempSync(path.join(dir, 'home-'));
    const claudeEnv = {
      HOME: home,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-bench-0123456789',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      PATH: `${path.dirname(claude)}${path.delimiter}${process.env.PATH ?? ''}`,
    };
    const flags = ['-p', 'hi', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'];
    const alone: number[] = [];
    const wrapped: number[] = [];
    const wrappedRss: number[] = [];
    for (let i = 0; i < 6; i++) {
      const a = await measure(flags, { file: claude, env: claudeEnv });
      const w = await measure([CLI, ...flags, '--harness', 'claude', '--no-session-persistence'], { env: claudeEnv });
      if (i === 0) continue; // warm-up
      alone.push(a.ms);
      wrapped.push(w.ms);
      wrappedRss.push(w.peakRssKb);
    }
    await server.close();
    harnessRows.push(
      [
        'harness claude: wall, 5,000 deltas (median of 5)',
        `${fmt(median(wrapped), 1)} ms through agentpipe, ${fmt(median(alone), 1)} ms claude alone`,
        `${(median(wrapped) / median(alone)).toFixed(2)} × claude alone`,
      ],
      [
        "harness claude: agentpipe's own peak RSS (the wrapped CLI's not counted)",
        `${fmt(median(wrappedRss) / 1024, 1)} MB, ${fmt((median(wrappedRss) - floorRss) / 1024, 1)} MB above ` +
          `node -e ''`,
        `${(median(wrappedRss) / floorRss).toFixed(2)} × node -e ''`,
      ],
    );
  } else {
    harnessRows.push(['harness claude', 'skipped: `npm run harness-clis` installs the wrapped CLIs', '']);
  }

  // agentpipe exec beside codex exec, against the same local server.
  const codexRows = await benchCodexExec(ROOT, CLI, dir, measure, fmt);

  // The cluster: the hop through Redis against one process.
  const clusterRows: Array<[string, string, string]> = [];
  const CLUSTER_SESSIONS = Number(process.env.BENCH_CLUSTER_SESSIONS ?? 100);
  const figures = await benchCluster(
    CLI,
    script('cluster.json', [{ text: 'x'.repeat(200), chunk_size: 10 }]),
    CLUSTER_SESSIONS,
  );
  if (figures) {
    const { single } = figures;
    const what = `${CLUSTER_SESSIONS} sessions at once; first delta of ${SEQUENTIAL} one at a time`;
    clusterRows.push([
      `single process serve: ${what}`,
      `${fmt(single.sessionsPerSecond, 1)} sessions/s, first delta p50 ${fmt(single.firstDeltaP50, 1)} ms, p99 ` +
        `${fmt(single.firstDeltaP99, 1)} ms`,
      'baseline',
    ]);
    for (const [workers, f] of figures.cluster) {
      const warm = f.warmSessions === undefined ? '' : `; ${f.warmSessions} of ${SEQUENTIAL} took a warm session`;
      clusterRows.push([
        `cluster, ${workers} worker${workers > 1 ? 's' : ''}: ${what}`,
        `${fmt(f.sessionsPerSecond, 1)} sessions/s, first delta p50 ${fmt(f.firstDeltaP50, 1)} ms ` +
          `(+${fmt(f.firstDeltaP50 - single.firstDeltaP50, 1)}), p99 ${fmt(f.firstDeltaP99, 1)} ms${warm}`,
        `${(f.sessionsPerSecond / single.sessionsPerSecond).toFixed(2)} × the single process's sessions/s`,
      ]);
    }
  } else clusterRows.push(['cluster', 'skipped: redis-server is not installed', '']);

  const tapeRows = await benchTapes(CLI, dir, script, measure);
  const seaRows = await benchSea(turnArgs, measure);
  const parserRows = await benchParser(CLI, dir, env);

  // A long tool loop: the cost of a turn must not grow with the history.
  writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\n');
  const loopTurns = [
    ...Array.from({ length: 200 }, (_, i) => ({
      tool_calls: [{ name: 'Read', id: `toolu_${i}`, input: { file_path: 'notes.txt' } }],
    })),
    { text: 'done' },
  ];
  const loop = await measure(
    [
      CLI,
      '-p',
      'loop',
      '--model',
      'scripted',
      '--script',
      script('loop.json', loopTurns),
      '--output-format',
      'stream-json',
      '--verbose',
      '--max-turns',
      '500',
    ],
    { lineTimes: /"tool_use_result"/ },
  );
  const perTurn = (from: number, to: number) => (loop.times[to]! - loop.times[from]!) / (to - from);
  // Windows of 50 turns: a window of 10 (about 10 ms) moved by half with one pause of the machine.
  const early = perTurn(5, 55);
  const late = perTurn(loop.times.length - 51, loop.times.length - 1);

  // A long session: the cost of a prompt must not grow with the session either.
  const PROMPTS = 10_000;
  const prompts = path.join(dir, 'prompts.jsonl');
  const promptLine = (i: number) =>
    JSON.stringify({ type: 'user', message: { role: 'user', content: `question ${i}` }, parent_tool_use_id: null });
  writeFileSync(prompts, Array.from({ length: PROMPTS }, (_, i) => `${promptLine(i)}\n`).join(''));
  const answers = Array.from({ length: PROMPTS }, (_, i) => ({ text: `${i}: ${'The answer is here. '.repeat(10)}` }));
  const sessionArgs = ['--model', 'scripted', '--script', script('answers.json', answers)];
  const session = await measure(
    [CLI, '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...sessionArgs],
    { stdin: prompts, lineTimes: /"type":"result"/ },
  );
  const perPrompt = (from: number, to: number) => (session.times[to]! - session.times[from]!) / (to - from);
  const earlyPrompt = perPrompt(500, 1500);
  const latePrompt = perPrompt(session.times.length - 1001, session.times.length - 1);

  const rows: Array<[string, string, string]> = [
    [
      'delta events/s end to end',
      `${fmt(cliRate)} /s (${fmt(DELTAS)} deltas, ${fmt(run.bytes / 1e6, 1)} MB, ${fmt(run.lines)} lines)`,
      `${(cliRate / baseRate).toFixed(2)} × baseline ${fmt(baseRate)} /s (JSON.stringify + backpressured write)`,
    ],
    [
      'delta events/s with telemetry on (OTLP traces and metrics to a loopback collector; median of 3)',
      `${fmt(DELTAS / (telemetry.on / 1000))} /s, off ${fmt(DELTAS / (telemetry.off / 1000))} /s (runs alternating)`,
      `${(telemetry.off / telemetry.on).toFixed(2)} × the same run with telemetry off`,
    ],
    [
      'spawn → exit, one turn with --otel and no collector listening (median of 3)',
      `${fmt(noCollector.on, 1)} ms, ${fmt(noCollector.on - noCollector.off, 1)} ms above without --otel ` +
        `(${fmt(noCollector.off, 1)} ms, runs alternating)`,
      `${(noCollector.on / noCollector.off).toFixed(2)} × the same run without --otel`,
    ],
    [
      'spawn → result, one turn, the first run after a build (no code cache yet)',
      `${fmt(cold.marks[0] ?? cold.ms, 1)} ms`,
      `${((cold.marks[0] ?? cold.ms) / coldFloor).toFixed(2)} × node -e '' (${fmt(coldFloor, 1)} ms, run next to it)`,
    ],
    [
      'spawn → first system/init (median of 20)',
      `${fmt(median(inits), 1)} ms`,
      `${(median(inits) / floor).toFixed(2)} × node -e '' (${fmt(floor, 1)} ms)`,
    ],
    [
      'spawn → result, one turn (median of 20)',
      `${fmt(median(results), 1)} ms`,
      `${(median(results) / floor).toFixed(2)} × node -e ''`,
    ],
    ...seaRows,
    ...sandboxRows,
    [
      'peak RSS, one turn (median of 20)',
      `${fmt(median(turnRss) / 1024, 1)} MB`,
      `${(median(turnRss) / floorRss).toFixed(2)} × node -e '' (${fmt(floorRss / 1024, 1)} MB)`,
    ],
    ...parserRows,
    [
      `peak RSS, ${fmt(SLOW_DELTAS)} deltas into a slow consumer`,
      `${fmt(slow.peakRssKb / 1024, 1)} MB`,
      `${(slow.peakRssKb / floorRss).toFixed(2)} × node -e ''`,
    ],
    ...providerRows,
    ...harnessRows,
    ...codexRows,
    ...clusterRows,
    ...tapeRows,
    [
      `200-turn tool loop (${loop.times.length} tool results), cost per turn`,
      `${fmt(early, 2)} ms at turns 5-55, ${fmt(late, 2)} ms at the last 50`,
      `${(late / early).toFixed(2)} × (late / early)`,
    ],
    [
      `${fmt(PROMPTS)} prompts in one stream-json process (${session.times.length} results), cost per prompt`,
      `${fmt(earlyPrompt, 2)} ms at prompts 500-1,500, ${fmt(latePrompt, 2)} ms at the last 1,000`,
      `${(latePrompt / earlyPrompt).toFixed(2)} × (late / early)`,
    ],
  ];
  console.log(`agentpipe bench — node ${process.version}, ${os.cpus().length} cores`);
  console.log('| measure | value | ratio |\n|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

/**
 * 11. A one-turn Bash run (a workspace-profile command: bypassPermissions) in the sandbox and with --sandbox off,
 * alternating, to the result line: what bubblewrap's start-up adds to a command; and the same with an allowed domain,
 * where the run starts the egress proxy's network namespace (once per session, when it opens).
 */
async function benchSandbox(): Promise<Array<[string, string, string]>> {
  const writeTurn = script('write-turn.json', [
    { tool_calls: [{ name: 'Bash', input: { command: 'echo hi > out.txt' } }] },
    { text: 'done' },
  ]);
  const writeArgs = [...oneTurnArgs(writeTurn), '--permission-mode', 'bypassPermissions'];
  const networkArgs = [
    ...writeArgs,
    '--settings',
    JSON.stringify({ sandbox: { network: { allowedDomains: ['x.test'] } } }),
  ];
  const sandboxedRuns: number[] = [];
  const unsandboxedRuns: number[] = [];
  const networkRuns: number[] = [];
  const load = os.loadavg()[0]!;
  for (let i = 0; i < 20; i++) {
    sandboxedRuns.push((await measure(writeArgs, { marks: [/"type":"result"/] })).marks[0]!);
    unsandboxedRuns.push((await measure([...writeArgs, '--sandbox', 'off'], { marks: [/"type":"result"/] })).marks[0]!);
    networkRuns.push((await measure(networkArgs, { marks: [/"type":"result"/] })).marks[0]!);
  }
  const off = median(unsandboxedRuns);
  // Each run beside the --sandbox off run of its round: the median of those differences moves less with the load.
  const paired = (runs: number[]) => fmt(median(runs.map((ms, i) => ms - unsandboxedRuns[i]!)), 1);
  const loads = `load average ${load.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}`;
  return [
    [
      'one turn with one Bash call in the sandbox, spawn → result (median of 20)',
      `${fmt(median(sandboxedRuns), 1)} ms, ${fmt(median(sandboxedRuns) - off, 1)} ms above ` +
        `--sandbox off (${fmt(off, 1)} ms, runs alternating; median of the paired differences ` +
        `${paired(sandboxedRuns)} ms; ${loads})`,
      `${(median(sandboxedRuns) / off).toFixed(2)} × the same with --sandbox off`,
    ],
    [
      'the same with sandbox.network.allowedDomains (the egress proxy starts), spawn → result (median of 20)',
      `${fmt(median(networkRuns), 1)} ms, ${fmt(median(networkRuns) - off, 1)} ms above --sandbox off ` +
        `(paired: ${paired(networkRuns)} ms)`,
      `${(median(networkRuns) / off).toFixed(2)} × the same with --sandbox off`,
    ],
    ...(await benchSandboxCommand(dir, fmt)),
  ];
}

/** Sections that run alone: `npm run bench -- codex tapes` prints only their rows (the whole bench takes minutes). */
const ALONE: Record<string, () => Promise<Array<[string, string, string]>>> = {
  codex: () => benchCodexExec(ROOT, CLI, dir, measure, fmt),
  tapes: () => benchTapes(CLI, dir, script, measure),
  parser: () => benchParser(CLI, dir, env),
  sea: () => benchSea(oneTurnArgs(), measure),
  sandbox: () => benchSandbox(),
};

const only = process.argv.slice(2);
if (only.length === 0) await main();
else {
  const unknown = only.filter((name) => !(name in ALONE));
  if (unknown.length) {
    console.error(
      `bench: unknown section ${unknown.join(', ')}; the ones that run alone: ${Object.keys(ALONE).join(', ')}`,
    );
    process.exit(2);
  }
  console.log(`agentpipe bench (${only.join(', ')}) — node ${process.version}, ${os.cpus().length} cores`);
  console.log('| measure | value | ratio |\n|---|---|---|');
  for (const name of only) for (const row of await ALONE[name]!()) console.log(`| ${row.join(' | ')} |`);
}
