/**
 * Helpers for the hooks, permissions, subagents and progress tests: run the real CLI on a
 * scripted model in a temp folder, or drive a Session + SessionRunner in process.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
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

/**
 * Runs each of `commands` as one Bash call (bypassPermissions, the OS sandbox required) in `cwd`, with `home` as HOME
 * and agentpipe's home under it; the script is written to `cwd`'s parent. Returns the run and the tool results' text
 * (one per command, in order), after asserting the CLI ended with 0.
 */
export async function runSandboxedCommands(
  cwd: string,
  home: string,
  commands: string[],
  args: string[] = [],
): Promise<RunResult & { results: string[]; said: string }> {
  const calls = commands.map((command) => ({ tool_calls: [{ name: 'Bash', input: { command } }] }));
  const script = writeScript(path.dirname(cwd), [...calls, { text: 'done' }]);
  const run = await runCli(
    [
      '-p',
      'go',
      ...scriptedStreamArgs(script),
      '--permission-mode',
      'bypassPermissions',
      '--sandbox',
      'required',
      ...args,
    ],
    { cwd, env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') }, timeoutMs: 60_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  const results = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content));
  return { ...run, results, said: results.join('\n') };
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
