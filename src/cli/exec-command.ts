/**
 * `agentpipe exec [OPTIONS] [PROMPT]`: Codex's `codex exec`, so the Codex SDK (`codexPathOverride`)
 * and scripts written for codex run agentpipe's loop. One prompt per run: the prompt argument (or
 * stdin; a prompt argument with piped stdin gets it appended as a `<stdin>` block, as in codex),
 * the session opened as every entry point opens it, its stream printed as `codex exec --json`
 * lines (src/codex/exec/format.ts). Thread ids are agentpipe session ids: `exec resume <id>`
 * continues the session, `exec fork <id>` copies it. Exit 0 when the turn completed, 1 when it
 * failed or could not start, 2 for a wrong command line (as codex).
 */
import { writeFileSync } from 'node:fs';
import { promptMessage } from '../messages/user.ts';
import type { ParsedLine } from '../messages/parse.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { pipeOutput } from '../pipeline/output.ts';
import type { OutputLine } from '../pipeline/format/types.ts';
import { openSession, SessionSetupError } from '../session/open.ts';
import { keepYoungGenerationSmall } from '../process/young-generation.ts';
import { VERSION } from '../version.ts';
import { EXEC_HELP, EXEC_USAGE, ExecUsageError, parseExecArgs, type ExecArgs } from '../codex/exec/args.ts';
import { ExecSetupError, execPlan, promptContent } from '../codex/exec/options.ts';
import { CodexExecFormat } from '../codex/exec/format.ts';
import { interruptOnSignals, readAll, runStdout, toAsync } from './print-io.ts';

/** Runs `agentpipe exec` with the arguments after `exec`; returns the exit code. */
export async function runExecCommand(argv: string[], log: (line: string) => void): Promise<number> {
  keepYoungGenerationSmall();
  let args: ExecArgs;
  try {
    args = parseExecArgs(argv);
  } catch (error) {
    if (!ExecUsageError.isInstance(error)) throw error;
    log(`error: ${error.message}\n\n${EXEC_USAGE}\n\nFor more information, try '--help'.`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(EXEC_HELP);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`agentpipe exec ${VERSION}\n`);
    return 0;
  }
  try {
    return await run(args, log);
  } catch (error) {
    if (ExecUsageError.isInstance(error)) {
      log(`error: ${error.message}`);
      return 2;
    }
    if (!(ExecSetupError.isInstance(error) || SessionSetupError.isInstance(error))) throw error;
    log(`Error: ${error.message}`);
    return 1;
  }
}

/** The prompt: the argument, or stdin (codex appends piped stdin to a prompt argument). */
async function promptText(args: ExecArgs): Promise<string> {
  const piped = !process.stdin.isTTY;
  if (args.prompt !== undefined && args.prompt !== '-') {
    const extra = piped ? (await readAll(process.stdin)).trim() : '';
    return extra ? `${args.prompt}\n\n<stdin>\n${extra}\n</stdin>` : args.prompt;
  }
  return piped ? await readAll(process.stdin) : '';
}

async function run(args: ExecArgs, log: (line: string) => void): Promise<number> {
  const plan = execPlan(args, process.env, process.cwd());
  for (const flag of args.inert) log(`agentpipe exec: note: --${flag} has no effect in agentpipe`);
  if (plan.ignoredKeys.length)
    log(`agentpipe exec: warning: -c ${plan.ignoredKeys.join(', ')} has no effect in agentpipe (ignored)`);
  if (args.features.length)
    log(`agentpipe exec: warning: --enable/--disable ${args.features.join(', ')}: codex features have no effect`);
  const text = await promptText(args);
  if (!text.trim() && !args.images.length) throw new ExecSetupError('No prompt provided via stdin.');
  const content = promptContent(text, args.images, process.cwd());
  const options = plan.options;

  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: 256 });
  const { session, runner } = await openSession(options, { send: (line) => queue.push(line), log });
  const { writer, gone } = runStdout(session, queue, log);
  interruptOnSignals(runner, session, log);
  const format = new CodexExecFormat({ json: args.json, cwd: options.cwd!, log });
  const output = pipeOutput(queue, format, writer);
  const promptLine: ParsedLine = { ok: true, message: promptMessage(content) };
  await runner.run(toAsync([promptLine]));
  await session.close();
  queue.done();
  await output;
  const { readerGone, failed } = gone();
  if (readerGone) return failed ? 1 : 0;
  if (args.outputLastMessage) writeFileSync(args.outputLastMessage, format.lastMessage);
  const result = format.result;
  return result && !result.is_error ? 0 : 1;
}
