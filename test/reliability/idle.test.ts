/**
 * Idle connections cost nothing lasting: 200 serve connections that close without a prompt leave
 * no transcript and no open file descriptor (with --debug-file too); a prompt creates its transcript.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { serveOn, converse } from '../transport/serve-client.ts';
import { tempDir } from '../helpers/workspace.ts';

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const transcripts = (home: string): string[] => {
  try {
    return readdirSync(path.join(home, 'projects'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.jsonl'));
  } catch {
    return [];
  }
};

async function openAndClose(url: string): Promise<void> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send('{"type":"end_input"}\n');
  await new Promise((resolve) => ws.once('close', resolve));
}

test(
  '200 idle serve connections: no transcript, no leaked descriptor; one prompt: one transcript',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const home = tempDir();
    const dir = tempDir();
    const { cli, url } = await serveOn(
      ['--model', 'scripted', '--cwd', dir, '--debug-file', path.join(dir, 'debug.log')],
      { AGENTPIPE_HOME: home },
    );
    const pid = cli.child.pid!;
    for (let i = 0; i < 20; i++) await openAndClose(url);
    const before = fds(pid);
    for (let i = 0; i < 200; i++) await openAndClose(url);
    assert.ok(fds(pid) <= before + 2, `descriptors grew from ${before} to ${fds(pid)}`);
    assert.deepEqual(transcripts(home), [], 'idle sessions left transcripts');
    const { lines } = await converse(url, 'hello');
    assert.equal(lines.at(-1)!.type, 'result');
    assert.equal(transcripts(home).length, 1);
  },
);
