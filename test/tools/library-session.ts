/** Runs one prompt through a library-built Session + SessionRunner with a scripted model. */
import { FixedScript, ScriptedProvider, type ScriptTurn } from '../../src/model/scripted.ts';
import type { ModelRequest } from '../../src/model/types.ts';
import type { ParsedLine } from '../../src/messages/parse.ts';
import { createSession } from '../../src/session/create.ts';
import { SessionRunner } from '../../src/session/runner.ts';
import type { SessionOptions } from '../../src/session/options.ts';

export async function runLibrarySession(options: SessionOptions, turns: ScriptTurn[], prompt = 'go') {
  const requests: ModelRequest[] = [];
  const script = new FixedScript({ turns });
  const provider = new ScriptedProvider({
    next: (request) => (
      requests.push(structuredClone({ ...request, abortSignal: undefined }) as unknown as ModelRequest),
      script.next()
    ),
  });
  const messages: Array<Record<string, any>> = [];
  const send = async (line: unknown) => {
    messages.push(JSON.parse(JSON.stringify(line)));
  };
  const session = await createSession({ options, provider, model: 'scripted', emit: send });
  const runner = new SessionRunner(session, send, { log: () => {} });
  const line: ParsedLine = {
    ok: true,
    message: { type: 'user', message: { role: 'user', content: prompt }, parent_tool_use_id: null, session_id: '' },
  };
  await runner.run(
    (async function* () {
      yield line;
    })(),
  );
  await session.close();
  const toolResults = messages
    .filter((m) => m.type === 'user' && m.message.content[0]?.type === 'tool_result')
    .map((m) => ({ ...m.message.content[0], tool_use_result: m.tool_use_result }));
  return { messages, requests, toolResults, result: messages.at(-1)! };
}
