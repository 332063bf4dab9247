/** docs/codex.md: its copy-paste examples run as written (`agentpipe` is this repository's launcher). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, parseLines } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { AGENTPIPE, sdkEnv } from './helpers.ts';

const DOC = readFileSync(path.join(ROOT, 'docs/codex.md'), 'utf8');
/** The doc's code blocks of a language, in order. */
const blocks = (lang: string) =>
  [...DOC.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

/** A folder to run an example in: a README to look at, the repository's node_modules for its imports. */
function exampleDir(): { cwd: string; env: Record<string, string> } {
  const cwd = scratchDir('codex-doc-');
  writeFileSync(path.join(cwd, 'README.md'), '# An example folder\n');
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(cwd, 'node_modules'));
  return { cwd, env: sdkEnv(path.join(cwd, 'home'), { AGENTPIPE_BIN: AGENTPIPE }) };
}

function run(file: string, args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

test('docs/codex.md: the agentpipe exec command prints codex exec --json lines', async () => {
  const line = blocks('sh')[0]!.split('\n')[0]!;
  assert.match(line, /^agentpipe exec --json /);
  const words = line
    .replace(/^agentpipe /, '')
    .match(/"[^"]*"|\S+/g)!
    .map((w) => w.replace(/^"|"$/g, ''));
  const { cwd, env } = exampleDir();
  const result = await run(AGENTPIPE, words, cwd, env);
  assert.equal(result.code, 0, result.stderr);
  const events = parseLines(result.stdout);
  assert.equal(events[0]!.type, 'thread.started');
  assert.equal(events.at(-1)!.type, 'turn.completed');
  assert.ok(events.some((e) => e.item?.type === 'agent_message' && /README\.md/.test(e.item.text)));
});

test('docs/codex.md: the TypeScript examples (the Codex SDK, an app-server client) run as written', async () => {
  const [sdk, client] = blocks('ts');
  assert.ok(sdk && client);
  const { cwd, env } = exampleDir();
  writeFileSync(path.join(cwd, 'sdk.ts'), sdk);
  const first = await run(process.execPath, ['sdk.ts'], cwd, env);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /This folder holds/);
  assert.match(first.stdout, /^command_execution$/m);
  writeFileSync(path.join(cwd, 'client.ts'), client);
  const second = await run(process.execPath, ['client.ts'], cwd, env);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /\[commandExecution\]/);
  assert.match(second.stdout, /This folder holds/);
});
