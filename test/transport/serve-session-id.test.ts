/**
 * `agentpipe serve` names each connection's session in the upgrade response
 * (X-Agentpipe-Session-Id), before the first message: the id every message then carries.
 * (The cluster's front end does the same: test/cluster/front-end.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { tempDir } from '../helpers/workspace.ts';
import { serveOn } from './serve-client.ts';
import { collectLines, userLine } from './ws-helpers.ts';

test('serve: the upgrade response names the session; its messages carry that id', async () => {
  const { url } = await serveOn(['--no-token', '--model', 'scripted', '--cwd', tempDir()]);
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const ws = new WebSocket(url);
    const lines: Array<Record<string, any>> = [];
    collectLines(ws, lines);
    const closed = new Promise((resolve) => ws.on('close', resolve));
    const header = await new Promise<string | undefined>((resolve, reject) => {
      ws.on('upgrade', (res) => resolve(res.headers['x-agentpipe-session-id']?.toString()));
      ws.on('error', reject);
    });
    assert.match(header ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    if (ws.readyState !== WebSocket.OPEN) await new Promise((resolve) => ws.once('open', resolve));
    ws.send(`${userLine('hi')}{"type":"end_input"}\n`);
    await closed;
    const carried = new Set(lines.filter((m) => m.type !== 'keep_alive').map((m) => m.session_id));
    assert.deepEqual([...carried], [header]);
    ids.push(header!);
  }
  assert.notEqual(ids[0], ids[1], 'each connection is its own session');
});
