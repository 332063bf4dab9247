/** The conformance suite (common.ts) against the real `claude` CLI on a local fake of the Messages API. */
import { anthropicBlock, anthropicStream, startFakeServer, type Reply } from '../../model/fake-servers.ts';
import { claudeOfflineEnv, driveHarness, harnessDirs } from '../helpers.ts';
import type { HarnessConfig } from '../../../src/harness/types.ts';
import { conformanceRun, runConformance, turnsOf, type ModelTurn } from './common.ts';

/** `turn` as a Messages API answer. */
function reply(turn: ModelTurn): Reply {
  const text = (pieces: string[]) =>
    anthropicBlock(
      0,
      { type: 'text', text: '' },
      pieces.map((t) => ({ type: 'text_delta', text: t })),
    );
  switch (turn.kind) {
    case 'text':
      return { kind: 'sse', frames: anthropicStream([text(turn.chunks)], 'end_turn') };
    case 'hang':
      // message_start, ping, the block's start and one delta; then nothing more.
      return { kind: 'sse', frames: anthropicStream([text([turn.text])], 'end_turn').slice(0, 4), then: 'hang' };
    case 'shell':
      return {
        kind: 'sse',
        frames: anthropicStream(
          [
            anthropicBlock(0, { type: 'tool_use', id: 'toolu_shell', name: 'Bash', input: {} }, [
              { type: 'input_json_delta', partial_json: JSON.stringify({ command: turn.command }) },
            ]),
          ],
          'tool_use',
        ),
      };
    case 'unauthorized':
      return {
        kind: 'json',
        status: 401,
        body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
      };
  }
}

runConformance({
  name: 'claude',
  denial: /not today/,
  async start(script, config = {}) {
    const isModel = (method: string, p: string) =>
      method === 'POST' && p.startsWith('/v1/messages') && !p.includes('count_tokens');
    const next = turnsOf(script);
    const api = await startFakeServer((request) =>
      isModel(request.method, request.path) ? reply(next()) : { kind: 'json', status: 200, body: { input_tokens: 1 } },
    );
    const { home, cwd } = harnessDirs('claude-conformance');
    const env = claudeOfflineEnv(api.url, home);
    return conformanceRun({
      cwd,
      start: (more) => driveHarness({ name: 'claude', cwd, ...config, ...more }, env),
      modelRequests: () =>
        api.requests.filter((r) => isModel(r.method, r.path)).map((r) => JSON.stringify(r.body?.messages ?? [])),
      closeFake: () => api.close(),
    });
  },
  async commandConfig(command) {
    const { cwd } = harnessDirs('claude-conformance-command');
    const driven = await driveHarness({ name: 'claude', cwd, command });
    return { driven, close: () => driven.harness.close() };
  },
});
