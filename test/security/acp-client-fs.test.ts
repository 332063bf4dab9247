/**
 * Attacker rows for the ACP client's file service (src/harness/acp/client-fs.ts): the agent runs in its sandbox, and
 * agentpipe reads and writes for it outside that sandbox. A FIFO the agent made in the working folder must not stall
 * agentpipe's read (a blocked read holds one of libuv's four file-system threads forever: four such requests stall
 * every file operation of agentpipe's); a folder swapped for a link between the check and the read is refused, not
 * followed (only its race-free half is a row: the swap itself cannot be timed from a test).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ClientFs } from '../../src/harness/acp/client-fs.ts';
import { tempDir } from '../helpers/workspace.ts';

/** `work` settled within 20 s, or a failure saying it stalled (the old read of a FIFO never settled). */
async function settled<T>(work: Promise<T>, what: string): Promise<PromiseSettledResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never settled: agentpipe's read is stalled`)), 20_000);
  });
  try {
    return await Promise.race([Promise.allSettled([work]).then(([result]) => result!), stalled]);
  } finally {
    clearTimeout(timer);
  }
}

test('fs/read_text_file of a FIFO the agent made answers (not found) instead of stalling agentpipe', async () => {
  const cwd = realpathSync(tempDir({ 'notes.txt': 'one\ntwo\n' }));
  execFileSync('mkfifo', [path.join(cwd, 'pipe')]);
  const fs = new ClientFs(cwd, () => 's', []);
  const fifo = path.join(cwd, 'pipe');
  const result = await settled(fs.readFile({ sessionId: 's', path: fifo }), 'the FIFO read');
  // A read still blocked on the FIFO (the test failed) gets its end of file: a writer opened and closed at once.
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader left (ENXIO): nothing is stalled.
  }
  assert.equal(result.status, 'rejected');
  assert.deepEqual(await fs.readFile({ sessionId: 's', path: path.join(cwd, 'notes.txt') }), {
    content: 'one\ntwo\n',
  });
});

test('fs/read_text_file through a link inside the folder reads its target; a folder is not found', async () => {
  const cwd = realpathSync(tempDir());
  mkdirSync(path.join(cwd, 'sub'));
  writeFileSync(path.join(cwd, 'sub', 'f.txt'), 'inside');
  execFileSync('ln', ['-s', 'sub', path.join(cwd, 'alias')]);
  const fs = new ClientFs(cwd, () => 's', []);
  assert.deepEqual(await fs.readFile({ sessionId: 's', path: path.join(cwd, 'alias', 'f.txt') }), {
    content: 'inside',
  });
  await assert.rejects(fs.readFile({ sessionId: 's', path: path.join(cwd, 'sub') }));
});

void test.todo(
  'fs/read_text_file and Write/Edit: a folder swapped for a link between the check and the open cannot be timed ' +
    'from a test; file-write.ts refuses it on the opened folder (covered for Write by folder-swap.test.ts)',
);
