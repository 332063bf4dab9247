/**
 * The conformance suite (common.ts) against the ACP harness: `agentpipe acp` (dist) as the ACP agent, its model a
 * local fake of an OpenAI-compatible API.
 */
import { startFakeServer, type RecordedRequest } from '../../model/fake-servers.ts';
import { CLI_PATH } from '../../helpers/cli.ts';
import { driveHarness, harnessDirs } from '../helpers.ts';
import type { HarnessConfig } from '../../../src/harness/types.ts';
import { conformanceRun, runConformance, turnsOf } from './common.ts';
import { chatReply } from './openai-chat.ts';

const isModel = (r: RecordedRequest) => r.method === 'POST' && r.path.includes('/chat/completions');

runConformance({
  name: 'acp',
  // ACP's answer to session/request_permission is an option, without the session's message.
  denial: /rejected Bash/,
  async start(script, config = {}) {
    const next = turnsOf(script);
    const api = await startFakeServer((request) =>
      isModel(request) ? chatReply(next(), 'Bash') : { kind: 'json', status: 404, body: {} },
    );
    const { home, cwd } = harnessDirs('acp-conformance');
    const command = [process.execPath, CLI_PATH, 'acp', '--base-url', `${api.url}/v1`, '--model', 'local-model'];
    return conformanceRun({
      cwd,
      start: (more) => driveHarness({ name: 'acp', cwd, command, ...config, ...more }, { AGENTPIPE_HOME: home }),
      modelRequests: () => api.requests.filter(isModel).map((r) => JSON.stringify(r.body?.messages ?? [])),
      closeFake: () => api.close(),
    });
  },
  async commandConfig(command) {
    const { home, cwd } = harnessDirs('acp-conformance-command');
    const driven = await driveHarness({ name: 'acp', cwd, command }, { AGENTPIPE_HOME: home });
    return { driven, close: () => driven.harness.close() };
  },
});
