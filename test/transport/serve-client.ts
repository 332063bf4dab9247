/** A served `agentpipe serve` on a free port, and a client that sends prompts and collects every line. */
import { after } from 'node:test';
import WebSocket from 'ws';
import { userLine, watchedCli } from './ws-helpers.ts';

/** Starts `agentpipe serve --port 0 <args>`; stopped (SIGTERM) after the test file. */
export async function serveOn(args: string[], env: Record<string, string> = {}) {
  const cli = watchedCli(['serve', '--port', '0', ...args], env);
  after(() => cli.child.kill('SIGTERM'));
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+)/);
  return { cli, url: url! };
}

/** Connects, sends the prompts then end_input, and resolves with every line once the server closed. */
export async function converse(
  url: string,
  ...prompts: string[]
): Promise<{ lines: Array<Record<string, any>>; code: number }> {
  const ws = new WebSocket(url);
  const lines: Array<Record<string, any>> = [];
  let pending = '';
  ws.on('open', () => ws.send(prompts.map(userLine).join('') + '{"type":"end_input"}\n'));
  ws.on('message', (data) => {
    pending += data.toString();
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const line of parts) if (line) lines.push(JSON.parse(line));
  });
  const code = await new Promise<number>((resolve, reject) => {
    ws.on('close', (c) => resolve(c));
    ws.on('error', reject);
  });
  return { lines, code };
}
