/** `--add-dir`: extra working folders, named in the system prompt and covered by acceptEdits like the cwd. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli } from '../helpers/cli.ts';
import { toolResults } from '../helpers/agent-run.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { CLAUDE, STREAM, anthropic, place, run, text } from '../session/helpers.ts';

function writes(files: string[]) {
  return [
    {
      tool_calls: files.map((file, i) => ({
        name: 'Write',
        id: `toolu_w${i}`,
        input: { file_path: file, content: 'written' },
      })),
    },
    { text: 'done' },
  ];
}

test('acceptEdits writes in the --add-dir folders like in the cwd; elsewhere it still needs approval', async () => {
  const cwd = tempDir();
  const extra = tempDir();
  const outside = tempDir();
  const files = [path.join(cwd, 'a.txt'), path.join(extra, 'sub', 'b.txt'), path.join(outside, 'c.txt')];
  const script = writeScript(cwd, writes(files));
  const args = [
    '-p',
    'write',
    ...STREAM,
    '--script',
    script,
    '--permission-mode',
    'acceptEdits',
    '--add-dir',
    extra,
    '--no-session-persistence',
  ];
  const { stdout, code } = await runCli(args, { cwd });
  assert.equal(code, 0);
  assert.equal(readFileSync(files[0]!, 'utf8'), 'written');
  assert.equal(readFileSync(files[1]!, 'utf8'), 'written');
  assert.equal(existsSync(files[2]!), false);
  const result = parseLines(stdout).at(-1)!;
  assert.deepEqual(
    result.permission_denials.map((d: { tool_use_id: string }) => d.tool_use_id),
    ['toolu_w2'],
  );
  assert.match(
    String(toolResults(parseLines(stdout)).get('toolu_w2')!.content),
    /outside the working folders.*--add-dir/,
  );
});

test('without --add-dir, acceptEdits does not cover other folders', async () => {
  const cwd = tempDir();
  const extra = tempDir();
  const file = path.join(extra, 'b.txt');
  const script = writeScript(cwd, writes([file]));
  const { stdout } = await runCli(
    ['-p', 'write', ...STREAM, '--script', script, '--permission-mode', 'acceptEdits', '--no-session-persistence'],
    { cwd },
  );
  assert.equal(existsSync(file), false);
  assert.equal(parseLines(stdout).at(-1)!.permission_denials.length, 1);
});

test('the system prompt names the extra folders (relative ones resolved against the cwd)', async () => {
  const p = place();
  const server = await anthropic([text('ok')]);
  const extra = tempDir();
  const relative = path.relative(p.cwd, extra);
  const { code } = await run(p, ['-p', 'hi', ...STREAM, ...CLAUDE, '--add-dir', relative, '--add-dir', extra], {
    env: server.env,
  });
  assert.equal(code, 0);
  assert.match(
    server.requests[0]!.body.system,
    new RegExp(`Additional working folders.*${extra.replaceAll('/', '\\/')}`),
  );
});

test('a folder that does not exist is a usage error', async () => {
  const { code, stderr, stdout } = await runCli(['-p', 'hi', '--add-dir', '/no/such/folder/here']);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /--add-dir \/no\/such\/folder\/here: no such folder/);
});
