/**
 * Tapes in `npm run bench`: a scripted session whose answer is 10,000 events (BENCH_TAPE_EVENTS) is recorded with its
 * stream (`--include-partial-messages`: the tape holds every event twice, as the answer and as the stream), then
 * replayed from the tape (median of 5, spawn → result), each replay beside the same session on the scripted model.
 * The aim: under 2 s.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { median } from './stats.ts';

/** What the bench's runner gives: a timed CLI run (marks: when each pattern was first seen on stdout). */
export type Measure = (
  args: string[],
  options?: { marks?: RegExp[]; env?: NodeJS.ProcessEnv },
) => Promise<{ ms: number; marks: number[]; peakRssKb: number }>;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

export async function benchTapes(
  cli: string,
  dir: string,
  script: (name: string, turns: unknown[]) => string,
  measure: Measure,
): Promise<Array<[string, string, string]>> {
  const events = Number(process.env.BENCH_TAPE_EVENTS ?? 10_000);
  // message_start, a block's start and stop, message_delta, message_stop: 5 events besides the deltas.
  const answer = script('tape-answer.json', [{ text: 'x'.repeat(events - 5), chunk_size: 1 }]);
  const tape = path.join(dir, 'bench.tape.jsonl');
  // A folder of its own: the tape's file snapshots hold only what the session works on, not the bench's scripts.
  const work = path.join(dir, 'tape-work');
  mkdirSync(work, { recursive: true });
  const flags = [
    '-p',
    'go',
    '--cwd',
    work,
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-partial-messages',
  ];
  const scripted = [cli, ...flags, '--model', 'scripted', '--script', answer, '--no-session-persistence'];
  await measure([...scripted, '--record', tape]);
  const replay = [cli, ...flags, '--replay', tape, '--no-session-persistence'];
  const result = [/"type":"result"/];
  await measure(replay, { marks: result }); // warm: the replay's chunks get their compile cache
  const replays: number[] = [];
  const beside: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await measure(replay, { marks: result });
    replays.push(r.marks[0] ?? r.ms);
    rss.push(r.peakRssKb);
    const s = await measure(scripted, { marks: result });
    beside.push(s.marks[0] ?? s.ms);
  }
  return [
    [
      `tape: a ${fmt(events)}-event tape replayed, spawn → result (median of 5; aim: under 2 s)`,
      `${fmt(median(replays), 1)} ms (tape ${fmt(statSync(tape).size / 1e6, 1)} MB, peak RSS ` +
        `${fmt(median(rss) / 1024, 1)} MB)`,
      `${(median(replays) / median(beside)).toFixed(2)} × the same session on the scripted model ` +
        `(${fmt(median(beside), 1)} ms, run beside it)`,
    ],
  ];
}
