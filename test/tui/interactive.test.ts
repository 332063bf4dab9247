/**
 * The interactive session in a real pseudo-terminal (test/tui/pty.py types the keys once the screen shows what each
 * step waits for): a prompt, the streamed answer, a permission question answered "always" (saved to the folder's
 * local settings; the next one not asked), Ctrl-C in the middle of a running tool (its process gone before the next
 * key), /resume of the saved session in a new process and Ctrl-C twice to leave.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_PATH } from '../helpers/cli.ts';
import { runToEnd } from '../helpers/processes.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { watchedCli } from '../transport/ws-helpers.ts';

const PTY = path.join(import.meta.dirname, 'pty.py');
/** The prompt line, as readline draws it (a cursor move may follow). */
const PROMPT = '> (\u001b\\[\\d+G)?$';
/** The running tool's sleep: a duration no other process uses, to see its process gone after Ctrl-C. */
const SLEEP = '31.4159';

/**
 * Runs the CLI in a pseudo-terminal, typing each step's keys once its pattern showed (and, with a third element, once
 * no process's command line matches it); what the screen kept.
 */
async function session(args: string[], steps: Array<[string, string] | [string, string, string]>, cwd: string) {
  const { NO_COLOR: _, FORCE_COLOR: __, ...env } = process.env;
  const run = await runToEnd(
    'python3',
    [PTY, '100', JSON.stringify(steps), '--', process.execPath, CLI_PATH, ...args],
    {
      cwd,
      env: { ...env, ANTHROPIC_API_KEY: '', NO_COLOR: '1', TERM: 'xterm-256color' },
    },
  );
  // Everything written, in order (readline redraws its line: each redraw is a line here).
  const screen = run.stdout
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '\n')
    .split(/[\r\n]+/)
    .map((line) => line.trim())
    .filter(Boolean);
  return { code: run.code, screen, text: screen.join('\n') };
}

test('interactive: prompt, streamed answer, "always" saved, Ctrl-C mid-tool; /resume in a new process; Ctrl-C twice leaves', async () => {
  const dir = tempDir();
  const first = writeScript(
    dir,
    [
      { text: 'Let me write it.', tool_calls: [{ name: 'Write', input: { file_path: 'out.txt', content: 'x\n' } }] },
      { tool_calls: [{ name: 'Write', input: { file_path: 'again.txt', content: 'y\n' } }] },
      { text: 'Written.' },
      { tool_calls: [{ name: 'Bash', input: { command: `sleep ${SLEEP}` } }] },
    ],
    'first.json',
  );
  const one = await session(
    ['--model', 'scripted', '--script', first],
    [
      [PROMPT, 'write it\r'],
      ['\\[a\\]lways', 'a\r'],
      [PROMPT, 'wait\r'],
      ['\\[a\\]lways', 'y\r'],
      [`sleep ${SLEEP}\` running`, '\u0003'],
      // The keys wait until no process runs the command: the interrupt ended the tool's whole process group.
      ['Command was interrupted[\\s\\S]*' + PROMPT, '/cost\r', `sleep ${SLEEP.replace('.', '\\.')}`],
      [PROMPT, '\u0004'],
    ],
    dir,
  );
  assert.equal(one.code, 0, one.text);
  const id = /^session ([0-9a-f-]{36}) · model scripted · \/help for commands$/m.exec(one.text)?.[1];
  assert.ok(id, one.text);
  const at = (pattern: RegExp) => {
    const index = one.screen.findIndex((line) => pattern.test(line));
    assert.ok(index >= 0, `${pattern} in:\n${one.text}`);
    return index;
  };
  const order = [
    at(/^Let me write it\.$/),
    at(/^Allow Write out\.txt\? \[y\]es, \[n\]o, \[a\]lways \(Write\):/),
    at(/^saved: Write is allowed in .*settings\.local\.json$/),
    at(/^✓ Write out\.txt \(\d+\.\d s\)$/),
    at(/^✓ Write again\.txt \(\d+\.\d s\)$/),
    at(/^Written\.$/),
    at(/^Allow `sleep 31\.4159`\? \[y\]es/),
    at(/^… `sleep 31\.4159` running$/),
    at(/^interrupting \(Ctrl-C\)$/),
    at(/^✗ `sleep 31\.4159` \(\d+\.\d s\): Command was interrupted/),
    at(/^\$\d+\.\d{4} in session /),
  ];
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  assert.equal(one.screen.filter((line) => /^Allow Write/.test(line)).length, 1, 'after "always", Write is not asked');
  assert.equal(readFileSync(path.join(dir, 'out.txt'), 'utf8'), 'x\n');
  assert.equal(readFileSync(path.join(dir, 'again.txt'), 'utf8'), 'y\n');
  const saved = JSON.parse(readFileSync(path.join(dir, '.agentpipe', 'settings.local.json'), 'utf8')) as {
    permissions: { allow: string[] };
  };
  assert.deepEqual(saved.permissions.allow, ['Write']);

  const second = writeScript(dir, [{ text: 'Back again.' }], 'second.json');
  const two = await session(
    ['--model', 'scripted', '--script', second],
    [
      [PROMPT, `/resume ${id}\r`],
      [PROMPT, 'go on\r'],
      ['Back again\\.[\\s\\S]*' + PROMPT, '\u0003'],
      ['Ctrl-C again', '\u0003'],
    ],
    dir,
  );
  assert.equal(two.code, 0, two.text);
  assert.match(two.text, new RegExp(`^resuming ${id}$`, 'm'));
  assert.match(two.text, new RegExp(`^session ${id} · model scripted`, 'm'), 'the same session goes on');
  assert.match(two.text, /^Back again\.$/m);
});

test('interactive: the answer is rendered as Markdown, and an Edit shows its diff', async () => {
  const dir = tempDir({ 'notes.txt': 'one\ntwo\nthree\n' });
  const answer = [
    '# The plan',
    '',
    'This is **bold** and `inline code`.',
    '',
    '- first item',
    '- second item',
    '',
    '```js',
    'const answer = 42;',
    '```',
    '',
    'Done.',
  ].join('\n');
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Read', input: { file_path: 'notes.txt' } }] },
    {
      text: 'Editing.',
      tool_calls: [{ name: 'Edit', input: { file_path: 'notes.txt', old_string: 'two', new_string: 'TWO' } }],
    },
    { text: answer, chunk_size: 7 },
  ]);
  const run = await session(
    ['--model', 'scripted', '--script', script, '--permission-mode', 'acceptEdits'],
    [
      [PROMPT, 'go\r'],
      ['Done\\.[\\s\\S]*' + PROMPT, '\u0004'],
    ],
    dir,
  );
  assert.equal(run.code, 0, run.text);
  const at = (line: string) => {
    const index = run.screen.indexOf(line);
    assert.ok(index >= 0, `${JSON.stringify(line)} in:\n${run.text}`);
    return index;
  };
  // The diff under the Edit's line, then the answer's blocks in order, their Markdown marks rendered away.
  const order = [
    at('Editing.'),
    run.screen.findIndex((l) => /^✓ Edit notes\.txt \(\d+\.\d s\)$/.test(l)),
    at('@@ -1,3 +1,3 @@'),
    at('-two'),
    at('+TWO'),
    at('# The plan'),
    at('This is bold and inline code.'),
    at('* first item'),
    at('* second item'),
    at('const answer = 42;'),
    at('Done.'),
  ];
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  assert.doesNotMatch(run.text, /\*\*bold\*\*|```|`inline code`/);
  assert.equal(readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'one\nTWO\nthree\n');
});

test('interactive --connect: the session runs on a serve (its token from the URL), asks here, answers here', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { text: 'Remote here.', tool_calls: [{ name: 'Write', input: { file_path: 'remote.txt', content: 'r\n' } }] },
    { text: 'Wrote **it** remotely.' },
  ]);
  const server = watchedCli([
    ...['serve', '--port', '0', '--model', 'scripted', '--script', script, '--cwd', dir],
    ...['--permission-prompt-tool', 'stdio'],
  ]);
  try {
    const url = (await server.waitFor(/listening on (ws:\/\/\S+\?token=\S+) /))[1]!;
    const here = tempDir();
    const run = await session(
      ['--connect', url],
      [
        [PROMPT, 'write remotely\r'],
        ['\\[a\\]lways', 'y\r'],
        ['Wrote it remotely\\.[\\s\\S]*' + PROMPT, '/resume x\r'],
        ['not available on a remote session[\\s\\S]*' + PROMPT, '\u0004'],
      ],
      here,
    );
    assert.equal(run.code, 0, run.text);
    const at = (pattern: RegExp) => {
      const index = run.screen.findIndex((line) => pattern.test(line));
      assert.ok(index >= 0, `${pattern} in:\n${run.text}`);
      return index;
    };
    const order = [
      at(/^session [0-9a-f-]{36} · model scripted · \/help for commands$/),
      at(/^Remote here\.$/),
      at(/^Allow Write remote\.txt\? \[y\]es, \[n\]o, \[a\]lways/),
      at(/^✓ Write remote\.txt \(\d+\.\d s\)$/),
      at(/^Wrote it remotely\.$/),
    ];
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    // The tool ran on the server's folder, not here.
    assert.equal(readFileSync(path.join(dir, 'remote.txt'), 'utf8'), 'r\n');

    // A wrong token is one line, before any prompt.
    const refused = await session(
      ['--connect', url.replace(/token=\S+/, 'token=wrong')],
      [['refused the connection[\\s\\S]*' + PROMPT, '\u0004']],
      here,
    );
    assert.equal(refused.code, 0, refused.text);
    assert.match(
      refused.text,
      /error: connect: ws:\/\/\S+ refused the connection \(HTTP 401: the token is missing or wrong\)/,
    );
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
