/**
 * can_use_tool side by side (issue 14): the real pinned Claude Code and agentpipe, each driven by
 * the official SDK's query() with a canUseTool callback, answer the same fake Messages API; the
 * callback must receive the same details from both (suggestions, display name, description, why it
 * asks, the tool use id).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { CLI_PATH } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { claudeOfflineEnv, cliBin, testPath } from '../harness/helpers.ts';
import { startFakeServer, type Reply } from '../model/fake-servers.ts';
import { answer, calls } from './side-by-side.ts';

/** What canUseTool received for each call of one run (the request id aside: each side numbers its own). */
async function asked(which: 'claude' | 'agentpipe', replies: (cwd: string) => Reply[]): Promise<unknown[]> {
  const root = scratchDir(`cut-${which}`);
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(path.join(cwd, 'a.txt'), 'one\n');
  const script = replies(cwd);
  let n = 0;
  const server = await startFakeServer((r) =>
    r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens')
      ? script[Math.min(n++, script.length - 1)]!
      : { kind: 'json', status: 200, body: { input_tokens: 1 } },
  );
  const seen: unknown[] = [];
  try {
    const run = query({
      prompt: 'go',
      options: {
        pathToClaudeCodeExecutable: which === 'claude' ? cliBin('claude') : CLI_PATH,
        model: 'claude-sonnet-4-6',
        cwd,
        env: {
          PATH: testPath(),
          ...claudeOfflineEnv(server.url, home, 'sk-ant-test-side-by-side'),
          IS_SANDBOX: '1',
          ...(process.env.AGENTPIPE_CLI_SOURCE ? { AGENTPIPE_CLI_SOURCE: '1' } : {}),
        },
        canUseTool: async (toolName, input, options) => {
          const {
            signal: _signal,
            requestId: _requestId,
            ...details
          } = options as typeof options & {
            requestId?: string;
          };
          // Claude Code fills Edit's `replace_all: false` default into the input (a known difference, not this row's).
          const { replace_all: replaceAll, ...rest } = input;
          const shown = replaceAll === false ? rest : input;
          const line = JSON.stringify({ toolName, input: shown, ...details });
          seen.push(JSON.parse(line.split(cwd).join('<CWD>')));
          return { behavior: 'deny', message: 'not now' };
        },
      },
    });
    for await (const _message of run);
  } finally {
    await server.close();
  }
  return seen;
}

test('canUseTool gets what Claude Code sends: suggestions (a Bash prefix rule, acceptEdits for an edit, a WebFetch domain rule), display name, description, why', async () => {
  const replies = (cwd: string) => [
    calls(['toolu_npm', 'Bash', { command: 'npm test -- --grep foo' }]),
    calls(['toolu_exact', 'Bash', { command: 'make build-all' }]),
    calls(['toolu_write', 'Write', { file_path: `${cwd}/new.txt`, content: 'x\n' }]),
    calls(['toolu_read', 'Read', { file_path: `${cwd}/a.txt` }]),
    calls(['toolu_edit', 'Edit', { file_path: `${cwd}/a.txt`, old_string: 'one', new_string: 'two' }]),
    calls(['toolu_fetch', 'WebFetch', { url: 'https://example.com/page', prompt: 'x' }]),
    answer('done'),
  ];
  const claude = await asked('claude', replies);
  const agentpipe = await asked('agentpipe', replies);
  assert.equal(claude.length, 5, JSON.stringify(claude));
  assert.deepEqual(agentpipe, claude);
});
