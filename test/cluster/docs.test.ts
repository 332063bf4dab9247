/**
 * docs/cluster.md's *Try it on one machine*, run as written on a private Redis (its URL in place of
 * the page's, port 0 for the front end): the worker and front-end lines start the cluster, a
 * WebSocket client of the front end gets its prompt's one result, and the library example runs on
 * the same workers and prints its result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { watchedCli } from '../transport/ws-helpers.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, type ClusterProcess } from './cluster.ts';

const DOC = readFileSync(path.join(ROOT, 'docs/cluster.md'), 'utf8');
const execFileAsync = promisify(execFile);
const DOC_REDIS = 'redis://127.0.0.1:6390';

/** The fenced blocks of `lang` in the section titled `heading`. */
function blocks(heading: string, lang: string): string[] {
  const section = DOC.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(section, `docs/cluster.md has a section "${heading}"`);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

/** The arguments of an `agentpipe …` line of the block (`&` dropped, `"$PWD"` the given folder). */
function agentpipeArgs(line: string, redis: string, cwd: string): string[] {
  const words = line.replace(/&\s*$/, '').trim().split(/\s+/);
  assert.equal(words[0], 'agentpipe');
  return words.slice(1).map((w) => (w === DOC_REDIS ? redis : w === '"$PWD"' ? cwd : w === '8080' ? '0' : w));
}

test('docs/cluster.md: the cluster of the page starts as written; a WebSocket client and the library example each get their result', async () => {
  const [sh] = blocks('Try it on one machine', 'sh');
  const [ts] = blocks('Try it on one machine', 'ts');
  assert.ok(sh && ts);
  const lines = sh.split('\n').filter(Boolean);
  assert.match(lines[0]!, /^redis-server --port 6390 --appendonly yes /, 'the page starts Redis with persistence');
  const redis = await startRedis(); // the page's Redis, on a free port
  const dir = tempDir();
  writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  const started: ClusterProcess[] = [];
  try {
    let url = '';
    for (const line of lines.slice(1)) {
      const cli = watchedCli(agentpipeArgs(line, redis.url, dir));
      started.push(cli);
      if (line.includes(' worker ')) await cli.waitFor(/taking sessions from/, 30_000);
      else url = (await cli.waitFor(/listening on (ws:\/\/\S+)/, 30_000))[1]!;
    }
    assert.ok(url.includes('token='), 'serve prints its URL with the token it made');

    const client = new Client(url);
    await client.open();
    client.send(prompt('count the files here'));
    await client.until(() => client.results().length === 1, 'the result', 60_000);
    assert.equal(client.results()[0]!.subtype, 'success');
    client.ws.close();

    const example = path.join(dir, 'example.mjs');
    const dist = pathToFileURL(path.join(ROOT, 'dist/index.js')).href;
    // The page's TypeScript has no types to strip but the import: it runs as a module against the built package.
    writeFileSync(example, ts.replace("from 'agentpipe'", `from ${JSON.stringify(dist)}`));
    const run = await execFileAsync(process.execPath, [example], {
      cwd: dir,
      env: { ...process.env, REDIS_URL: redis.url },
    });
    assert.match(run.stdout, /^success \d+\n$/);
  } finally {
    for (const cli of started) await kill9(cli);
    await redis.stop();
  }
});
