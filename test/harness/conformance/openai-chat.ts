/** The model turns of the conformance suite as an OpenAI-compatible chat completions server answers them. */
import { OPENAI_DONE, openaiChunk, openaiUsage, type Reply } from '../../model/fake-servers.ts';
import type { ModelTurn } from './common.ts';

/**
 * `turn` as an OpenAI-compatible chat completions answer (Qwen Code's provider and `agentpipe acp`'s): the shell
 * call goes to the tool named `shellTool`.
 */
export function chatReply(turn: ModelTurn, shellTool: string): Reply {
  const done = [openaiUsage(20, 5), OPENAI_DONE];
  switch (turn.kind) {
    case 'text':
      return {
        kind: 'sse',
        frames: [
          openaiChunk({ role: 'assistant', content: turn.chunks[0] }),
          ...turn.chunks.slice(1).map((content) => openaiChunk({ content })),
          openaiChunk({}, 'stop'),
          ...done,
        ],
      };
    case 'hang':
      return { kind: 'sse', frames: [openaiChunk({ role: 'assistant', content: turn.text })], then: 'hang' };
    case 'shell': {
      const call = { name: shellTool, arguments: JSON.stringify({ command: turn.command }) };
      return {
        kind: 'sse',
        frames: [
          openaiChunk({
            role: 'assistant',
            tool_calls: [{ index: 0, id: 'call_sh', type: 'function', function: call }],
          }),
          openaiChunk({}, 'tool_calls'),
          ...done,
        ],
      };
    }
    case 'unauthorized':
      return {
        kind: 'json',
        status: 401,
        body: {
          error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
        },
      };
  }
}
