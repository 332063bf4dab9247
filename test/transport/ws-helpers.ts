/** Helpers of the WebSocket transport tests: a CLI whose stderr is watched, and line collection. */
import type { ChildProcess } from 'node:child_process';
import type WebSocket from 'ws';
import { startCli } from '../helpers/cli.ts';

/** A started CLI, its stderr so far, and a wait for a stderr pattern. */
export function watchedCli(args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = startCli(args, { env });
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(stderr);
        if (match) return match;
        if (Date.now() > deadline) throw new Error(`stderr never matched ${pattern}: ${stderr}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
  };
}

export const userLine = (content: string) =>
  JSON.stringify({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' }) + '\n';

/** Collects the JSON lines of a socket's frames into `lines`. */
export function collectLines(ws: WebSocket, lines: Array<Record<string, any>>): void {
  ws.on('message', (data: WebSocket.RawData) => {
    for (const line of data.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, any>);
  });
}

export const kinds = (lines: Array<Record<string, any>>) =>
  lines.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type));
