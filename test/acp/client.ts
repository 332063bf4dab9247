/** Starts `agentpipe acp` as a child process and connects the ACP SDK's own client to it. */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { CLI_PATH } from '../helpers/cli.ts';

export interface Recorded {
  updates: Array<{ sessionId: string; update: Record<string, any> }>;
  permissions: Array<Record<string, any>>;
}

/**
 * Runs `op` against a fresh `agentpipe acp`; `answer` picks the permission option; `env` adds variables
 * (AGENTPIPE_HOME).
 */
export async function withAcpAgent<T>(
  args: string[],
  op: (ctx: acp.ClientContext, recorded: Recorded) => Promise<T>,
  answer: (request: Record<string, any>) => string | 'cancelled' = () => 'allow',
  env: Record<string, string> = {},
): Promise<{ value: T; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, [CLI_PATH, 'acp', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ANTHROPIC_API_KEY: '', ...env },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const recorded: Recorded = { updates: [], permissions: [] };
  const app = acp
    .client({ name: 'test-client' })
    .onNotification('session/update', ({ params }) => {
      recorded.updates.push({ sessionId: params.sessionId, update: params.update as Record<string, any> });
    })
    .onRequest('session/request_permission', ({ params }) => {
      recorded.permissions.push(params as Record<string, any>);
      const choice = answer(params as Record<string, any>);
      return choice === 'cancelled'
        ? { outcome: { outcome: 'cancelled' } }
        : { outcome: { outcome: 'selected', optionId: choice } };
    });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const value = await app.connectWith(stream, (ctx) => op(ctx, recorded));
    child.stdin.end();
    const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
    return { value, stderr, code };
  } finally {
    child.kill();
  }
}
