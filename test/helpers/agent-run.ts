/**
 * Helpers for the hooks, permissions, subagents and progress tests: run the real CLI on a
 * scripted model in a temp folder, or drive a Session + SessionRunner in process.
 */
import type { AgentMessage } from '../../src/messages/types.ts';
import type { ParsedLine } from '../../src/messages/parse.ts';
import { FixedScript, ScriptedProvider, type ScriptTurn } from '../../src/model/scripted.ts';
import type { OutputLine } from '../../src/pipeline/format/types.ts';
import type { SessionOptions } from '../../src/session/options.ts';
import { createSession } from '../../src/session/create.ts';
import { SessionRunner } from '../../src/session/runner.ts';
import { parseLines, runCli, type RunResult, scriptedStreamArgs } from './cli.ts';
import { writeScript } from './workspace.ts';

/** Runs `agentpipe -p <prompt>` with stream-json output on a script; returns lines too. */
export async function runScripted(
  dir: string,
  turns: ScriptTurn[],
  args: string[] = [],
  options: { env?: NodeJS.ProcessEnv; prompt?: string; timeoutMs?: number } = {},
): Promise<RunResult & { lines: Array<Record<string, any>> }> {
  const script = writeScript(dir, turns);
  const run = await runCli(['-p', options.prompt ?? 'go', ...scriptedStreamArgs(script), ...args], {
    cwd: dir,
    env: options.env,
    timeoutMs: options.timeoutMs,
  });
  return { ...run, lines: parseLines(run.stdout) };
}

/** A Session + SessionRunner on a script, fed `prompts`; returns every output line. */
export async function runInProcess(
  turns: ScriptTurn[],
  options: SessionOptions,
  prompts: string[] = ['go'],
): Promise<OutputLine[]> {
  const out: OutputLine[] = [];
  const send = async (line: OutputLine) => {
    out.push(line);
  };
  const provider = new ScriptedProvider(new FixedScript({ turns }));
  const session = await createSession({ options, provider, model: 'scripted', emit: send });
  const runner = new SessionRunner(session, send, { log: () => {} });
  const lines: ParsedLine[] = prompts.map((text) => ({
    ok: true,
    message: { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null },
  }));
  await runner.run(
    (async function* () {
      yield* lines;
    })(),
  );
  await session.close();
  return out;
}

/** The messages of one `type` (and `subtype`). */
export function ofType(
  lines: Array<Record<string, any>> | OutputLine[],
  type: string,
  subtype?: string,
): Array<Record<string, any>> {
  return (lines as Array<Record<string, any>>).filter(
    (l) => l.type === type && (subtype === undefined || l.subtype === subtype),
  );
}

/** tool_result blocks by tool_use_id. */
export function toolResults(lines: Array<Record<string, any>> | OutputLine[]): Map<string, Record<string, any>> {
  const map = new Map<string, Record<string, any>>();
  for (const l of ofType(lines, 'user')) {
    for (const b of Array.isArray(l.message.content) ? l.message.content : [])
      if (b.type === 'tool_result') map.set(b.tool_use_id, { ...b, line: l });
  }
  return map;
}

export type { AgentMessage };
