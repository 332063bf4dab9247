/** The conformance suite (common.ts) against the real `qwen` CLI on a local fake of an OpenAI-compatible API. */
import { startFakeServer, type RecordedRequest } from '../../model/fake-servers.ts';
import { driveHarness, harnessDirs } from '../helpers.ts';
import type { HarnessConfig } from '../../../src/harness/types.ts';
import { conformanceRun, runConformance, turnsOf } from './common.ts';
import { chatReply } from './openai-chat.ts';

type ChatMessage = { role: string; content: unknown };

/** Qwen Code's side requests (its memory subagent), answered apart from the script. */
const isSideRequest = (r: RecordedRequest) =>
  JSON.stringify((r.body?.messages as ChatMessage[] | undefined)?.[0]?.content ?? '').includes('memory extraction');
const isModel = (r: RecordedRequest) =>
  r.method === 'POST' && r.path.includes('/chat/completions') && !isSideRequest(r);

runConformance({
  name: 'qwen',
  denial: /not today/,
  async start(script, config = {}) {
    const next = turnsOf(script);
    const api = await startFakeServer((request) => {
      if (isModel(request)) return chatReply(next(), 'run_shell_command');
      if (isSideRequest(request)) return chatReply({ kind: 'text', chunks: ['nothing to remember'] }, '');
      return { kind: 'json', status: 200, body: {} };
    });
    const { home, cwd } = harnessDirs('qwen-conformance');
    const env = { HOME: home, OPENAI_BASE_URL: `${api.url}/v1`, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'qwen-test' };
    return conformanceRun({
      cwd,
      start: (more) => driveHarness({ name: 'qwen', cwd, ...config, ...more }, env),
      modelRequests: () => api.requests.filter(isModel).map((r) => JSON.stringify(r.body?.messages ?? [])),
      closeFake: () => api.close(),
    });
  },
  async commandConfig(command) {
    const { home, cwd } = harnessDirs('qwen-conformance-command');
    const driven = await driveHarness({ name: 'qwen', cwd, command }, { HOME: home });
    return { driven, close: () => driven.harness.close() };
  },
});
