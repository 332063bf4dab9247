/**
 * The differential suite: every scenario on Claude Code and on agentpipe (at the same time, a few
 * runs at once, one fake API), compared on the stream, the requests sent to the API and the files
 * left. With `twice`, Claude Code runs each scenario a second time and a scenario where its two
 * runs differ is reported as unstable and left out of the count.
 */
import { FakeApi } from './fake-api.ts';
import { differences } from './normalize.ts';
import { runScenario, type Outcome, type Product } from './run.ts';
import type { Scenario } from './scenario.ts';

/** One scenario's verdict. */
export interface Verdict {
  scenario: Scenario;
  same: boolean;
  unstable: boolean;
  /** The differences, by part, Claude Code's value first. */
  diffs: string[];
  /** What each product left, as compared (for `--dump`). */
  outcomes: { claude: Outcome; agentpipe: Outcome };
}

export interface SuiteOptions {
  twice?: boolean;
  concurrency?: number;
  onVerdict?: (verdict: Verdict) => void;
}

/** What of an outcome is compared (stderr is not: each product's diagnostics are its own). */
const compared = (o: Outcome) => ({
  code: o.code,
  stream: o.stream,
  extra: o.extra,
  requests: o.requests,
  files: o.files,
});

/** The message kinds of a stream, e.g. `system/init`, `assistant`. */
const kinds = (o: Outcome) =>
  o.stream.map((l) => {
    const line = l as Record<string, unknown>;
    return line.type === 'system' ? `system/${String(line.subtype)}` : String(line.type);
  });

function compare(claude: Outcome, agentpipe: Outcome): string[] {
  const out: string[] = [];
  const k1 = kinds(claude).join(' ');
  const k2 = kinds(agentpipe).join(' ');
  if (k1 !== k2) out.push(`kinds: claude [${k1}] | agentpipe [${k2}]`);
  return [...out, ...differences(compared(claude), compared(agentpipe))];
}

/** Runs `tasks` with at most `limit` at a time. */
async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** Runs the scenarios and returns a verdict for each, in order. */
export async function runSuite(scenarios: Scenario[], options: SuiteOptions = {}): Promise<Verdict[]> {
  const api = await FakeApi.start();
  try {
    const products: Product[] = options.twice ? ['claude', 'agentpipe', 'claude'] : ['claude', 'agentpipe'];
    const tasks = scenarios.map((scenario) => async (): Promise<Verdict> => {
      const [claude, agentpipe, again] = await Promise.all(products.map((p) => runScenario(api, scenario, p)));
      const unstable = again !== undefined && compare(claude!, again).length > 0;
      const diffs = compare(claude!, agentpipe!);
      const verdict = {
        scenario,
        same: diffs.length === 0,
        unstable,
        diffs,
        outcomes: { claude: claude!, agentpipe: agentpipe! },
      };
      options.onVerdict?.(verdict);
      return verdict;
    });
    return await pool(tasks, options.concurrency ?? 2);
  } finally {
    await api.stop();
  }
}

/** `N/M same` for the CLI and the SDK scenarios, the differences of each one that is not, and the unstable ones. */
export function report(verdicts: Verdict[]): string {
  const lines: string[] = [];
  for (const verdict of verdicts.filter((v) => !v.same && !v.unstable)) {
    lines.push(`✗ ${verdict.scenario.kind} ${verdict.scenario.name}`);
    for (const diff of verdict.diffs) lines.push(`    ${diff}`);
  }
  for (const verdict of verdicts.filter((v) => v.unstable))
    lines.push(`~ unstable in Claude Code: ${verdict.scenario.name}`);
  for (const kind of ['cli', 'sdk'] as const) {
    const counted = verdicts.filter((v) => v.scenario.kind === kind && !v.unstable);
    lines.push(`${kind.toUpperCase()}: ${counted.filter((v) => v.same).length}/${counted.length} same`);
  }
  return lines.join('\n');
}
