/**
 * The single executable in `npm run bench` (scripts/sea.ts, built here when it is older than dist/): a one-turn run,
 * spawn → `result` line (median of 10, each beside the launcher's `node bin/agentpipe.js` run of the same turn), as a
 * ratio to the launcher. The launcher's run uses its own code cache (written after the first run); the executable's
 * code cache is the one built into it.
 */
import { buildSea, SEA_PATH, seaIsCurrent } from '../scripts/sea.ts';
import { median } from './stats.ts';

/** What the bench's runner gives: a timed run of `file` (node by default) with `args`. */
export type MeasureFile = (
  args: string[],
  options?: { marks?: RegExp[]; file?: string },
) => Promise<{ ms: number; marks: number[]; peakRssKb: number }>;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

/** `launcherArgs`: the launcher's one-turn run (`bin/agentpipe.js` first). */
export async function benchSea(launcherArgs: string[], measure: MeasureFile): Promise<Array<[string, string, string]>> {
  const executable = seaIsCurrent() ? SEA_PATH : await buildSea('ignore');
  const result = [/"type":"result"/];
  const launcher: number[] = [];
  const single: number[] = [];
  const singleRss: number[] = [];
  const launcherRss: number[] = [];
  for (let i = 0; i < 11; i++) {
    const l = await measure(launcherArgs, { marks: result });
    const s = await measure(launcherArgs.slice(1), { marks: result, file: executable });
    if (i === 0) continue; // warm-up: the page cache, the launcher's code cache
    launcher.push(l.marks[0] ?? l.ms);
    launcherRss.push(l.peakRssKb);
    single.push(s.marks[0] ?? s.ms);
    singleRss.push(s.peakRssKb);
  }
  return [
    [
      'single executable: one turn, spawn → result (median of 10)',
      `${fmt(median(single), 1)} ms; the launcher ${fmt(median(launcher), 1)} ms`,
      `${(median(single) / median(launcher)).toFixed(2)} × the launcher`,
    ],
    [
      'single executable: peak RSS of that turn',
      `${fmt(median(singleRss) / 1024, 1)} MB; the launcher ${fmt(median(launcherRss) / 1024, 1)} MB`,
      `${(median(singleRss) / median(launcherRss)).toFixed(2)} × the launcher`,
    ],
  ];
}
