/**
 * Bash: runs a command in its own process group under the session's folder, inside the session's
 * sandbox with the profile its permission verdict gave (read-only when the check called it
 * read-only; outside the sandbox only for an approved line of `sandbox.excludedCommands` or a
 * `dangerouslyDisableSandbox` call the user approved). Output is capped with a clear notice, and
 * network connections the sandbox refused are named after it; a timeout or an abort kills the
 * whole group (SIGTERM, then SIGKILL).
 */
import { envNumber } from '../../process/env-number.ts';
import { objectSchema, optionalNumber, optionalString, requireString } from '../input.ts';
import type { Tool, ToolResult } from '../types.ts';
import { childEnv } from '../../process/env.ts';
import { defaultSandbox } from '../../sandbox/config.ts';

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
const KILL_GRACE_MS = 2_000;

/** Output cap in characters; `BASH_MAX_OUTPUT_LENGTH` overrides it, as in Claude Code. */
function outputCap(): number {
  return envNumber('BASH_MAX_OUTPUT_LENGTH', 30_000);
}

/** A stream's kept text, with a notice of what the cap dropped. */
function capped(text: string, dropped: number): string {
  const body = text.replace(/\n$/, '');
  return dropped ? `${body}\n\n[output truncated: ${dropped} more characters not shown]` : body;
}

export const bashTool: Tool = {
  name: 'Bash',
  description:
    'Runs a bash command in the working folder and returns its output. Use `timeout` (ms, max 600000) for long ' +
    'commands.',
  inputSchema: objectSchema(
    {
      command: { type: 'string', description: 'The command to run' },
      timeout: { type: 'number', description: 'Timeout in milliseconds (default 120000, max 600000)' },
      description: { type: 'string', description: 'What the command does, in 5-10 words' },
      dangerouslyDisableSandbox: {
        type: 'boolean',
        description:
          'Set this to true to dangerously override sandbox mode and run commands without sandboxing ' +
          '(always asks for approval of this call)',
      },
    },
    ['command'],
  ),
  shell: true,
  isReadOnly: async (input) =>
    typeof input.command === 'string' && (await (await import('../shell/facts.ts')).isReadOnlyShell(input.command)),
  async call(input, context): Promise<ToolResult> {
    const command = requireString(input, 'command');
    optionalString(input, 'description');
    if (input.dangerouslyDisableSandbox !== undefined && typeof input.dangerouslyDisableSandbox !== 'boolean')
      throw new Error('dangerouslyDisableSandbox must be a boolean');
    const timeout = optionalNumber(input, 'timeout', 1, MAX_TIMEOUT_MS) ?? DEFAULT_TIMEOUT_MS;
    // A line of read-only programs must not run programs named by repository config either,
    // whatever let it run (judged on its parse here: the config may have changed since the check).
    const { parsesReadOnly } = await import('../shell/facts.ts');
    const { readOnlyEnv } = await import('../shell/read-only-env.ts');
    const { withRipgrepOnPath } = await import('../ripgrep.ts');
    const { shellStart, trackedLine, takeReport, keepShellFolder } = await import('../shell/shell-cwd.ts');
    // Where the last call's `cd` left the shell, as the permission check judged it (judged here when no check ran,
    // among the session's working folders: its `--add-dir` folders are the sandbox's).
    const start = context.shell ?? shellStart(context.state, context.cwd, context.sandbox?.config.directories);
    const base = await withRipgrepOnPath(childEnv(), start.folders);
    const env = (await parsesReadOnly(command, start.folder)) ? readOnlyEnv(base) : base;
    const tracked = trackedLine(command, start);
    const { runSandboxed } = await import('../../sandbox/run.ts');
    // The process starts in the session's cwd (the sandbox's folders stay the working folders); the line cds on.
    const run = await runSandboxed(context.sandbox?.config ?? defaultSandbox(context.cwd), {
      profile: context.sandbox?.profile ?? 'workspace',
      command: tracked.line,
      cwd: context.cwd,
      env,
      cap: outputCap(),
      timeoutMs: timeout,
      signal: context.signal,
      graceMs: KILL_GRACE_MS,
      onOutput: (_stream, chunk) => context.onOutput?.(chunk),
    });
    const exit = { code: run.code, error: run.error };
    const reason = run.stopped === 'aborted' ? 'interrupted' : run.stopped;
    // What the egress proxy refused meanwhile: the command may only have printed a 403 or a refusal.
    const refused = (run.refused ?? []).map((d) => `[sandbox] network access refused: ${d.reason}`);
    const report = takeReport(run.stderr, tracked.marker);
    const reset = keepShellFolder(context.state, start, report.end) ?? start.note;
    const out = capped(run.stdout, run.dropped.stdout);
    const err = capped(report.stderr, run.dropped.stderr);
    const body = [out, err, ...refused].filter(Boolean).join('\n');
    // The reset note ends what the model reads; Claude Code gives it as the result's stderr.
    const shown = [body, reset].filter(Boolean).join('\n');
    // As Claude Code 2.1: stderr comes in stdout (it runs commands with the two merged), and the
    // SDK's BashOutput has no exit code; a failed command's result is "Exit code N" then its output.
    const { expectsNoOutput } = await import('../shell/quiet.ts');
    const data = {
      stdout: body,
      stderr: reset ? `\n${reset}` : '',
      interrupted: reason !== undefined,
      isImage: false,
      noOutputExpected: await expectsNoOutput(command),
    };
    if (exit.error) return { content: `Failed to run bash: ${exit.error.message}`, isError: true };
    if (reason === 'timeout')
      return { content: `${shown}\nCommand timed out after ${timeout} ms and was killed`.trim(), isError: true, data };
    if (reason === 'interrupted') return { content: `${shown}\nCommand was interrupted`.trim(), isError: true, data };
    const exitCode = exit.code ?? undefined;
    if (exit.code !== 0)
      return { content: `Exit code ${exit.code ?? 'unknown'}\n${shown}`.trim(), isError: true, exitCode };
    return { content: shown || '(Bash completed with no output)', data, exitCode };
  },
};
