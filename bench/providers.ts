/**
 * Local servers that speak the providers' real streaming wire formats for the bench: the
 * Anthropic Messages API (SSE events) and OpenAI-compatible chat completions (SSE chunks); `codex`
 * answers both OpenAI wires by path: the Responses API (what codex speaks) on `/responses` and chat
 * completions (what agentpipe speaks) on `/chat/completions`. Each answer is `deltas` text deltas of
 * one character, written with backpressure.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const anthropicFrame = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function anthropicFrames(deltas: number): Iterable<string> {
  return (function* () {
    yield anthropicFrame('message_start', {
      message: {
        id: 'msg_bench',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 0 },
      },
    });
    yield anthropicFrame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    // Rendered once: the bench measures agentpipe, not this server's JSON.stringify.
    const delta = anthropicFrame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'x' } });
    for (let i = 0; i < deltas; i++) yield delta;
    yield anthropicFrame('content_block_stop', { index: 0 });
    yield anthropicFrame('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: deltas },
    });
    yield anthropicFrame('message_stop', {});
  })();
}

function openaiFrames(deltas: number): Iterable<string> {
  const chunk = (delta: object, finish: string | null = null) =>
    'data: ' +
    JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'bench',
      choices: [{ index: 0, delta, finish_reason: finish }],
    }) +
    '\n\n';
  return (function* () {
    yield chunk({ role: 'assistant', content: '' });
    const delta = chunk({ content: 'x' });
    for (let i = 0; i < deltas; i++) yield delta;
    yield chunk({}, 'stop');
    yield (
      'data: ' +
      JSON.stringify({
        id: 'chatcmpl-bench',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'bench',
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: deltas, total_tokens: deltas + 10 },
      }) +
      '\n\n'
    );
    yield 'data: [DONE]\n\n';
  })();
}

/** The OpenAI Responses API's stream of one message (as codex reads it). */
function responsesFrames(deltas: number): Iterable<string> {
  const frame = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const response = (status: string, output: unknown[], usage: unknown = null) => ({
    id: 'resp_bench',
    object: 'response',
    created_at: 0,
    status,
    model: 'bench',
    output,
    usage,
  });
  const at = { output_index: 0, item_id: 'msg_bench', content_index: 0 };
  const text = 'x'.repeat(deltas);
  const part = { type: 'output_text', text, annotations: [] };
  const item = { id: 'msg_bench', type: 'message', role: 'assistant', status: 'completed', content: [part] };
  return (function* () {
    yield frame('response.created', { response: response('in_progress', []) });
    yield frame('response.output_item.added', {
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    });
    yield frame('response.content_part.added', { ...at, part: { ...part, text: '' } });
    const delta = frame('response.output_text.delta', { ...at, delta: 'x' });
    for (let i = 0; i < deltas; i++) yield delta;
    yield frame('response.output_text.done', { ...at, text });
    yield frame('response.content_part.done', { ...at, part });
    yield frame('response.output_item.done', { output_index: 0, item });
    const usage = { input_tokens: 10, output_tokens: deltas, total_tokens: deltas + 10 };
    yield frame('response.completed', { response: response('completed', [item], usage) });
  })();
}

/** A server answering every request with `deltas` deltas in the provider's format; `deltas` is read per request. */
export async function providerServer(
  kind: 'anthropic' | 'openai' | 'codex',
  deltas: () => number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const wire =
        kind === 'anthropic'
          ? anthropicFrames
          : kind === 'codex' && /\/responses(\?|$)/.test(req.url ?? '')
            ? responsesFrames
            : openaiFrames;
      const frames = wire(deltas())[Symbol.iterator]();
      const pump = () => {
        // Batches of frames per write, as a real server's TCP stream delivers them.
        for (;;) {
          let batch = '';
          for (let i = 0; i < 64; i++) {
            const next = frames.next();
            if (next.done) {
              res.end(batch);
              return;
            }
            batch += next.value;
          }
          if (!res.write(batch)) return void res.once('drain', pump);
        }
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: kind === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A provider server in another process. */
export interface ServerProcess {
  url: string;
  /** Sets the number of deltas of the next answers. */
  setDeltas(deltas: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The same server in a child process: in the bench's own process it shared one event loop with the reading of the
 * CLI's output, and a million deltas through both measured the bench as much as agentpipe. Commands on stdin (a
 * number of deltas), answers on stdout (the URL, then `ok` per command).
 */
export async function providerServerProcess(kind: 'anthropic' | 'openai'): Promise<ServerProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const read = async (): Promise<string> => {
    const next = await lines.next();
    if (next.done) throw new Error(`the ${kind} bench server exited`);
    return next.value;
  };
  const url = await read();
  return {
    url,
    setDeltas: async (deltas) => {
      child.stdin.write(`${deltas}\n`);
      if ((await read()) !== 'ok') throw new Error(`the ${kind} bench server did not take ${deltas}`);
    },
    close: async () => {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

if (import.meta.main) {
  const kind = process.argv[2] === 'openai' ? 'openai' : 'anthropic';
  let deltas = 1;
  const server = await providerServer(kind, () => deltas);
  console.log(server.url);
  for await (const line of createInterface({ input: process.stdin })) {
    deltas = Number(line);
    console.log('ok');
  }
  await server.close();
}
