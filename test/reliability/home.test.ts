/**
 * An agentpipe home (AGENTPIPE_HOME) that cannot be written still gives the prompt its result
 * (issue 28, B6: no result at all, a raw `ENOENT … mkdir` on a read-only disk, an empty `.lock`
 * left per attempt on a full one): the transcript is off, one warning line says where and why, and
 * no lock or empty transcript is left behind. A file in the way needs nothing special; the
 * read-only and the full home are small tmpfs mounts in a mount namespace of their own (`unshare`:
 * as root, or in a user namespace), gone when the run ends.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLI_PATH, parseLines, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { TranscriptWriter } from '../../src/session/transcript-writer.ts';

const FORMATS = ['json', 'stream-json'] as const;
/** `unshare` with a mount namespace of its own: as root directly, else with a user namespace. */
const UNSHARE = process.getuid?.() === 0 ? ['--mount'] : ['--user', '--map-root-user', '--mount'];
const canMount =
  process.platform === 'linux' &&
  spawnSync('unshare', [...UNSHARE, 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs "$0"', tempDir()]).status === 0;

/** The one warning: the transcript's path and why, in words (no raw `ENOENT: no such file or directory, mkdir`). */
function assertOneWarning(stderr: string, why: RegExp): void {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.match(lines[0]!, /^agentpipe: warning: the transcript is off: cannot write \/\S+\.jsonl: /);
  assert.match(lines[0]!, why);
  assert.doesNotMatch(lines[0]!, /(ENOENT|ENOTDIR|EROFS|ENOSPC): [a-z]|mkdir|scandir|open '/);
}

function assertOneResult(stdout: string, format: (typeof FORMATS)[number]): void {
  const lines = format === 'json' ? (JSON.parse(stdout) as Array<Record<string, any>>) : parseLines(stdout);
  const results = lines.filter((l) => l.type === 'result');
  assert.equal(results.length, 1, stdout);
  assert.equal(results[0]!.subtype, 'success');
  assert.equal(results[0]!.result, 'Answered without a transcript.');
  assert.equal(lines.at(-1)!.type, 'result');
}

for (const format of FORMATS) {
  test(`a home that is a file (${format}): the result, one warning naming the file in the way`, async () => {
    const dir = tempDir();
    const home = path.join(dir, 'home');
    writeFileSync(home, 'not a folder');
    const script = writeScript(dir, [{ text: 'Answered without a transcript.' }]);
    const run = await runCli(
      ['-p', 'hi', '--model', 'scripted', '--script', script, '--output-format', format, '--verbose'],
      { cwd: dir, env: { AGENTPIPE_HOME: home } },
    );
    assert.equal(run.code, 0, run.stderr);
    assertOneResult(run.stdout, format);
    assertOneWarning(run.stderr, new RegExp(`${home} is a file, not a folder; this session is not saved`));
  });

  for (const [kind, mount, why] of [
    ['read-only', 'mount -t tmpfs -o ro,size=64k tmpfs "$H"', /the file system is read-only \(EROFS/],
    // 16 pages, filled: folders may still be made, files cannot be written.
    ['full', 'mount -t tmpfs -o size=64k tmpfs "$H" && (cat /dev/zero > "$H/fill" 2>/dev/null; true)', /disk is full/],
  ] as const) {
    test(
      `a ${kind} home (${format}): the result, one warning with the path and why, no lock or transcript left`,
      { skip: canMount ? false : 'needs a mount namespace (unshare) for a tmpfs home' },
      () => {
        const dir = tempDir();
        const home = path.join(dir, 'home');
        const script = writeScript(dir, [{ text: 'Answered without a transcript.' }]);
        // The run, then what it left in the home, on stderr after a marker (the mount is gone after).
        const shell =
          `${mount} && "$NODE" "$CLI" -p hi --model scripted --script "$SCRIPT" --output-format ${format} ` +
          `--verbose; code=$?; echo "LEFT:$(find "$H" -name '*.lock' -o -name '*.jsonl' -o -name '*in-use*')" >&2; ` +
          'exit $code';
        const run = spawnSync('unshare', [...UNSHARE, 'sh', '-c', `mkdir -p "$H" && ${shell}`], {
          cwd: dir,
          encoding: 'utf8',
          env: {
            ...process.env,
            ANTHROPIC_API_KEY: '',
            AGENTPIPE_HOME: home,
            H: home,
            NODE: process.execPath,
            CLI: CLI_PATH,
            SCRIPT: script,
          },
          timeout: 20_000,
        });
        assert.equal(run.status, 0, run.stderr);
        assertOneResult(run.stdout, format);
        const [warning, left] = run.stderr.split('LEFT:');
        assertOneWarning(warning!, why);
        assert.equal(left!.trim(), '', 'a lock, a transcript or a cache mark was left behind');
      },
    );
  }
}

test(
  'a transcript whose disk fills up mid-session: one warning in words, the file is not removed',
  { skip: process.platform === 'linux' ? false : 'writes /dev/full' },
  async () => {
    const logged: string[] = [];
    // /dev/full: every write fails with ENOSPC. The writer must not remove what it did not create.
    const writer = new TranscriptWriter('/dev/full', (line) => logged.push(line));
    for (let i = 0; i < 3; i++) await writer.append({ i });
    await writer.close();
    assert.deepEqual(logged.length, 1);
    assert.match(logged[0]!, /the transcript is off: cannot write \/dev\/full: the disk is full \(ENOSPC\)/);
    assert.ok(spawnSync('test', ['-c', '/dev/full']).status === 0, '/dev/full is still there');
  },
);
