/**
 * `agentpipe exec` beside the real `codex exec` (the pinned codex of test/harness/clis) against the
 * same local server (bench/providers.ts `codex`: the Responses API for codex, chat completions for
 * agentpipe), each asked one question answered with 20 deltas: spawn → the first `item.completed`
 * of the answer (`agent_message`) on stdout, median of 5 alternating runs after a warm-up.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { providerServer } from './providers.ts';
import { median } from './stats.ts';

/** The bench's measure(): spawn → marks (times of the first line matching each regex), ms. */
type Measure = (
  args: string[],
  options: { marks?: RegExp[]; env?: NodeJS.ProcessEnv; file?: string; cwd?: string },
) => Promise<{ ms: number; marks: number[] }>;

const ANSWER = /"type":"item\.completed","item":\{"id":"item_\d+","type":"agent_message"/;

/** The rows of the comparison; a skipped row when the pinned codex is not installed. */
export async function benchCodexExec(
  root: string,
  cli: string,
  dir: string,
  measure: Measure,
  fmt: (n: number, digits?: number) => string,
): Promise<Array<[string, string, string]>> {
  const codex = path.join(root, 'test/harness/clis/node_modules/.bin/codex');
  if (!existsSync(codex)) return [['codex exec', 'skipped: `npm run harness-clis` installs the pinned codex', '']];
  const server = await providerServer('codex', () => 20);
  try {
    const home = mkdtempSync(path.join(dir, 'codex-home-'));
    const work = path.join(home, 'work');
    mkdirSync(path.join(work, '.git'), { recursive: true });
    writeFileSync(
      path.join(home, 'config.toml'),
      [
        'model_provider = "bench"',
        '[model_providers.bench]',
        'name = "bench"',
        `base_url = "${server.url}"`,
        'wire_api = "responses"',
        'supports_websockets = false',
        'env_key = "CODEX_API_KEY"',
        '',
      ].join('\n'),
    );
    const env = {
      HOME: home,
      CODEX_HOME: home,
      AGENTPIPE_HOME: path.join(home, 'agentpipe'),
      CODEX_API_KEY: 'sk-bench',
    };
    const prompt = ['--json', '--skip-git-repo-check', '--model', 'bench-model', '--ephemeral', 'hi'];
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < 6; i++) {
      const a = await measure([cli, 'exec', '-c', `openai_base_url="${server.url}"`, ...prompt], {
        marks: [ANSWER],
        env,
        cwd: work,
      });
      const c = await measure(['exec', ...prompt], { file: codex, marks: [ANSWER], env, cwd: work });
      if (i === 0) continue; // warm-up
      ours.push(a.marks[0] ?? Number.NaN);
      theirs.push(c.marks[0] ?? Number.NaN);
    }
    return [
      [
        'exec: spawn → first item.completed (the answer), median of 5',
        `${fmt(median(ours), 1)} ms agentpipe exec, ${fmt(median(theirs), 1)} ms codex exec 0.169.0 ` +
          '(same local server)',
        `${(median(ours) / median(theirs)).toFixed(2)} × codex exec`,
      ],
    ];
  } finally {
    await server.close();
  }
}
