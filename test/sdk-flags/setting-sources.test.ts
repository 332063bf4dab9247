/**
 * `--setting-sources` and the settings files: user ($AGENTPIPE_HOME), project and local (.agentpipe/), merged with
 * --settings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { STREAM, place, run, trusted, type Place } from '../session/helpers.ts';

/**
 * A place with a user file (Write allowed), a project file (Bash denied) and a local file (a PreToolUse hook leaving a
 * marker).
 */
function configured(trust = true): Place & { marker: string; target: string; script: string } {
  const p = place();
  // In the working folder: hooks run in the sandbox, where agentpipe's home is out of sight.
  const marker = path.join(p.cwd, 'hook-ran');
  mkdirSync(path.join(p.cwd, '.agentpipe'));
  writeFileSync(path.join(p.home, 'settings.json'), JSON.stringify({ permissions: { allow: ['Write'] } }));
  writeFileSync(path.join(p.cwd, '.agentpipe', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash'] } }));
  writeFileSync(
    path.join(p.cwd, '.agentpipe', 'settings.local.json'),
    JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `touch ${JSON.stringify(marker)}` }] }],
      },
    }),
  );
  const target = path.join(p.cwd, 'out.txt');
  const script = writeScript(p.home, [
    { tool_calls: [{ name: 'Write', input: { file_path: target, content: 'x' } }] },
    { text: 'done' },
  ]);
  if (trust) trusted(p);
  return { ...p, marker, target, script };
}

test('without the flag the CLI reads all three files in a trusted folder: user allow, project deny and local hooks apply', async () => {
  const p = configured();
  const { stdout, code } = await run(p, ['-p', 'write', ...STREAM, '--script', p.script, '--no-session-persistence']);
  assert.equal(code, 0);
  const lines = parseLines(stdout);
  assert.equal(lines[0]!.tools.includes('Bash'), false, 'project deny hides Bash');
  assert.ok(existsSync(p.target), 'user allow lets Write run in default mode');
  assert.ok(existsSync(p.marker), 'the local hook ran');
  assert.equal(lines.at(-1)!.permission_denials.length, 0);
});

test('without the flag, in a folder not trusted: the user file applies; the project and local files are named and left out', async () => {
  const p = configured(false);
  const { stdout, stderr, code } = await run(p, [
    '-p',
    'write',
    ...STREAM,
    '--script',
    p.script,
    '--no-session-persistence',
  ]);
  assert.equal(code, 0);
  const lines = parseLines(stdout);
  assert.equal(lines[0]!.tools.includes('Bash'), true, 'the project deny does not apply');
  assert.ok(existsSync(p.target), 'the user allow does');
  assert.equal(existsSync(p.marker), false, 'the local hook did not run');
  const ignored = stderr.split('\n').filter((line) => line.includes('is not a trusted folder'));
  assert.equal(ignored.length, 2, stderr);
  assert.match(ignored[0]!, /^agentpipe: warning: ignored .*\.agentpipe\/settings\.json \(permissions\)/);
  assert.match(ignored[1]!, /^agentpipe: warning: ignored .*\.agentpipe\/settings\.local\.json \(hooks\)/);
});

test('--setting-sources project reads only the project file; "" reads none', async () => {
  const p = configured();
  const only = parseLines(
    (
      await run(p, [
        '-p',
        'write',
        ...STREAM,
        '--script',
        p.script,
        '--setting-sources',
        'project',
        '--no-session-persistence',
      ])
    ).stdout,
  );
  assert.equal(only[0]!.tools.includes('Bash'), false);
  assert.equal(existsSync(p.target), false, 'no user allow: Write is not granted');
  assert.equal(existsSync(p.marker), false, 'no local hook');
  assert.equal(only.at(-1)!.permission_denials.length, 1);

  const script = writeScript(p.home, [{ text: 'ok' }], 'none.json');
  const none = parseLines(
    (await run(p, ['-p', 'hi', ...STREAM, '--script', script, '--setting-sources=', '--no-session-persistence']))
      .stdout,
  );
  assert.ok(none[0]!.tools.includes('Bash'));
});

test('--settings adds to the files', async () => {
  const p = configured();
  const script = writeScript(p.home, [{ text: 'ok' }], 'plain.json');
  const { stdout } = await run(p, [
    '-p',
    'hi',
    ...STREAM,
    '--script',
    script,
    '--settings',
    '{"permissions": {"deny": ["Grep"]}}',
    '--no-session-persistence',
  ]);
  const tools = parseLines(stdout)[0]!.tools as string[];
  assert.equal(tools.includes('Grep'), false);
  assert.equal(tools.includes('Bash'), false);
  assert.ok(tools.includes('Read'));
});

test('a malformed settings file of a trusted folder is a clear error naming it; an untrusted one is only named', async () => {
  const p = trusted(place());
  mkdirSync(path.join(p.cwd, '.agentpipe'));
  writeFileSync(path.join(p.cwd, '.agentpipe', 'settings.json'), '{"permissions": {"allow": "Bash"}}');
  const { stdout, stderr, code } = await run(p, ['-p', 'hi', '--model', 'scripted']);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(
    stderr,
    /project settings .*\.agentpipe\/settings\.json: permissions\.allow must be an array of rule strings/,
  );
  writeFileSync(path.join(p.home, 'settings.json'), '{}');
  const untrusted = await run(p, ['-p', 'hi', '--model', 'scripted', '--no-session-persistence']);
  assert.equal(untrusted.code, 0, untrusted.stderr);
  assert.match(untrusted.stderr, /ignored .*settings\.json \(permissions\): .* is not a trusted folder/);
});

test('an unknown source is refused', async () => {
  const p = place();
  const { code, stderr } = await run(p, ['-p', 'hi', '--setting-sources', 'user,team']);
  assert.equal(code, 1);
  assert.match(stderr, /unknown source "team"/);
});
