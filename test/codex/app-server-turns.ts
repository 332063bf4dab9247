/** What the app-server tests share: a stdio app-server on the scripted model, a started thread, one turn run. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppServerClient, type Frame } from './app-server-client.ts';
import { codexDirs, sdkEnv } from './helpers.ts';

/** A stdio app-server on a scripted model of `turns`, in a fresh folder. */
export function appServer(turns: unknown[], args: string[] = []) {
  const dir = codexDirs('app');
  const script = path.join(dir.home, 'script.json');
  writeFileSync(script, JSON.stringify({ turns }));
  const client = AppServerClient.stdio({
    args: ['--model', 'scripted', '--script', script, ...args],
    cwd: dir.cwd,
    env: sdkEnv(dir.home, { AGENTPIPE_TOOL_PROGRESS_MS: '50' }),
  });
  return { client, ...dir };
}

/** initialize, then thread/start (by default: asks for everything, in a read-only sandbox); the thread's id. */
export async function startThread(client: AppServerClient, cwd: string, params: Record<string, unknown> = {}) {
  await client.initialize();
  const started = await client.request('thread/start', {
    cwd,
    approvalPolicy: 'untrusted',
    sandbox: 'read-only',
    ...params,
  });
  assert.equal(started.error, undefined, JSON.stringify(started.error));
  return started.result.thread.id as string;
}

/** One turn/start of `text` to its turn/completed: the turn's id, that frame, and every frame from the start. */
export async function runTurn(client: AppServerClient, threadId: string, text: string) {
  const from = client.frames.length;
  const response = await client.request('turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }] });
  assert.equal(response.error, undefined, JSON.stringify(response.error));
  const turnId = response.result.turn.id as string;
  const completed = await client.turnCompleted(turnId, from);
  return { turnId, completed, frames: client.frames.slice(from) };
}

/** The `item/completed` items of `type` among `frames`. */
export function completedItems(frames: Frame[], type: string): Frame[] {
  return frames.filter((f) => f.method === 'item/completed' && f.params.item.type === type).map((f) => f.params.item);
}
