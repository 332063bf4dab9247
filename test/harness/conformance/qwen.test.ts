/** The conformance suite (common.ts) against the real `qwen` CLI on a local fake of an OpenAI-compatible API. */
import { startFakeServer, type RecordedRequest } from '../../model/fake-servers.ts';
import { driveHarness, harnessDirs, type DrivenHarness } from '../helpers.ts';
import type { HarnessConfig } from '../../../src/harness/types.ts';
import { runConformance } from './common.ts';
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
    let answered = 0;
    const api = await startFakeServer((request) => {
      if (isModel(request)) return chatReply(script[Math.min(answered++, script.length - 1)]!, 'run_shell_command');
      if (isSideRequest(request)) return chatReply({ kind: 'text', chunks: ['nothing to remember'] }, '');
      return { kind: 'json', status: 200, body: {} };
    });
    const { home, cwd } = harnessDirs('qwen-conformance');
    const env = { HOME: home, OPENAI_BASE_URL: `${api.url}/v1`, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'qwen-test' };
    const started: DrivenHarness[] = [];
    const another = async (more: Partial<HarnessConfig>) => {
      const driven = await driveHarness({ name: 'qwen', cwd, ...config, ...more }, env);
      started.push(driven);
      return driven;
    };
    return {
      driven: await another({}),
      cwd,
      another,
      modelRequests: () => api.requests.filter(isModel).map((r) => JSON.stringify(r.body?.messages ?? [])),
      async close() {
        for (const h of started) await h.harness.close();
        await api.close();
      },
    };
  },
  async commandConfig(command) {
    const { home, cwd } = harnessDirs('qwen-conformance-command');
    const driven = await driveHarness({ name: 'qwen', cwd, command }, { HOME: home });
    return { driven, close: () => driven.harness.close() };
  },
});
