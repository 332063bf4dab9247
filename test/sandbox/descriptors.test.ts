/**
 * Descriptors agentpipe inherited without close-on-exec (from whoever started it: a terminal, a CI runner) never
 * reach a sandboxed command: the launcher closes them (Node's spawn marks those below 17 close-on-exec itself, not
 * the others). With the sandbox off they do reach it: the test tests something.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { launcher } from '../../src/sandbox/launcher.ts';
import { CLI_PATH, parseLines, scriptedStreamArgs } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

/**
 * Runs one Bash call (or `commands`, one a turn), with agentpipe holding two inherited descriptors (40 and 90) unless
 * `clean`, in `dir` (a new folder unless given), `bin` in it first on PATH when `binFirst`.
 */
async function listed(
  extra: string[],
  command = "ls /proc/self/fd | tr '\\n' ' '",
  clean = false,
  { dir = tempDir(), commands = [command], binFirst = false } = {},
): Promise<string> {
  const turns = commands.map((line) => ({ tool_calls: [{ name: 'Bash', input: { command: line } }] }));
  const script = writeScript(dir, [...turns, { text: 'done' }]);
  const held = openSync(path.join(dir, 'held.txt'), 'w');
  const args = [
    CLI_PATH,
    '-p',
    'go',
    ...scriptedStreamArgs(script),
    '--permission-mode',
    'bypassPermissions',
    ...extra,
  ];
  const stdio: Array<'pipe' | 'ignore' | number> = ['pipe', 'pipe', 'pipe', ...Array<'ignore'>(88).fill('ignore')];
  if (!clean) stdio[40] = stdio[90] = held;
  // Clean: bash closes every descriptor past 2 that this process passed on (the test runner's own may leak).
  const closeAll = 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec "$@"';
  const [file, argv] = clean ? ['bash', ['-c', closeAll, 'bash', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(file, argv, {
    cwd: dir,
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: '',
      AGENTPIPE_HOME: scratchDir('fds-home-'),
      ...(binFirst ? { PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}` } : {}),
    },
    stdio,
  });
  closeSync(held);
  child.stdin!.end();
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  const result = parseLines(stdout).find((line) => line.type === 'user')?.message.content[0];
  return String(result?.content ?? '').trim();
}

test('descriptors agentpipe inherited (40 and 90) are closed before a sandboxed command starts', async () => {
  // ls has its own listing open as 3.
  assert.equal(await listed([]), '0 1 2 3');
  assert.match(await listed(['--sandbox', 'off']), /\b40\b.*\b90\b/, 'unconfined, they are there');
});

test('the bash that closes descriptors past 9 is not one a sandboxed command planted in a PATH folder it may write', async () => {
  const dir = tempDir();
  const marker = path.join(dir, '..', `PWNED-${path.basename(dir)}`);
  const planted = `#!/bin/sh\ntouch '${marker}'\nexec /bin/bash "$@"\n`;
  const place = `mkdir -p bin && printf '%s' '${planted}' > bin/bash && chmod +x bin/bash && echo PLACED`;
  await listed([], '', false, { dir, commands: [place, 'echo second'], binFirst: true });
  assert.equal(existsSync(path.join(dir, 'bin/bash')), true, 'the first command planted it');
  assert.equal(existsSync(marker), false, 'the planted bash ran outside the sandbox');
});

test('with nothing inherited, bubblewrap starts without a shell before it: the filter still on, no descriptor left', async () => {
  const status =
    "ls /proc/self/fd | tr '\\n' ' '; grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr -s '\\t\\n' '  '";
  assert.equal(await listed([], status, true), '0 1 2 3 NoNewPrivs: 1 Seccomp: 2');
});

test('launcher: bubblewrap directly when the spawner hands over the filter and nothing is inherited', () => {
  const args = ['--unshare-pid', '--', 'true'];
  assert.deepEqual(launcher(['bwrap'], args, '/f.bpf', [], true), {
    argv: ['bwrap', '--seccomp', '9', ...args],
    files: { 9: '/f.bpf' },
  });
  assert.deepEqual(launcher(['bwrap'], args, undefined, [], true), { argv: ['bwrap', ...args] });
  // A spawner that cannot (an MCP server's transport), or descriptors to close: the shell.
  for (const [inherited, files, shell] of [
    [[], false, '/bin/sh'],
    [[5], true, '/bin/sh'],
    [[40], true, /^\/.*\/bash$/],
  ] as const) {
    const { argv, files: given } = launcher(['bwrap'], args, '/f.bpf', [...inherited], files);
    assert.equal(given, undefined);
    if (typeof shell === 'string') assert.equal(argv[0], shell);
    else assert.match(argv[0]!, shell, "bash by its path: the spawner looks a bare name up on the child's PATH");
    assert.deepEqual(argv.slice(3), ['agentpipe-sandbox', 'bwrap', '--seccomp', '9', ...args]);
    assert.match(argv[2]!, /9<'\/f\.bpf'$/);
  }
});
