/**
 * The ACP connection's message streams on stdio, framed by agentpipe's NDJSON reader rather than
 * the ACP SDK's `ndJsonStream`, whose reader ends the whole connection on a line over its limit
 * (MessageTooLargeError) and hands on values of any depth. Here a line over the size limit is
 * skipped to its end and a value nested too deep is refused, each with a JSON-RPC error, and the
 * connection goes on (issue 27): a request gets an error response with its id, a response to one
 * of the agent's requests becomes an error response to it (so nothing waits for it), anything else
 * gets the error with `id: null`, as JSON-RPC answers what it cannot read.
 */
import { errorMessage } from '../process/errors.ts';
import { Writable } from 'node:stream';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { identify, nestedDeeper, tooDeepError } from '../messages/json-limits.ts';
import { readLines } from '../messages/ndjson.ts';
import type { MessageStream } from './pipelined.ts';

type Message = Record<string, unknown>;
type Id = string | number | null;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const errorResponse = (id: Id, code: number, message: string): Message => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

/** The message streams of an ACP agent on `input` and `output` (stdin and stdout). */
export function acpStdioStream(
  input: NodeJS.ReadableStream & AsyncIterable<Buffer | string>,
  output: NodeJS.WritableStream,
  o: { maxLine: number; log: (line: string) => void },
): MessageStream<AnyMessage> {
  const writer = (Writable.toWeb(output as Writable) as WritableStream<Uint8Array>).getWriter();
  const encoder = new TextEncoder();
  let queue: Promise<void> = Promise.resolve();
  const send = (message: Message | AnyMessage): Promise<void> => {
    const bytes = encoder.encode(`${JSON.stringify(message)}\n`);
    const write = queue.then(() => writer.write(bytes));
    // The write's failure goes to its caller; the queue moves on.
    queue = write.catch(() => undefined);
    return write;
  };

  /** A refused line: its sender gets the error; an answer to the agent's request fails that request. */
  async function* refuse(value: unknown, head: string, code: number, why: string): AsyncGenerator<AnyMessage> {
    const { id, request } = identify(value, head);
    o.log(`agentpipe acp: input refused: ${why}`);
    if (id !== null && !request) yield { jsonrpc: '2.0', id, error: { code, message: why } };
    else await send(errorResponse(request ? id : null, code, why));
  }

  async function* messages(): AsyncGenerator<AnyMessage> {
    for await (const item of readLines(input, o.maxLine)) {
      if ('tooLong' in item) {
        const why =
          `a message of ${item.tooLong} characters is over the limit of ${o.maxLine} ` + `(AGENTPIPE_MAX_INPUT_LINE)`;
        yield* refuse(undefined, item.head, INVALID_REQUEST, why);
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(item.line);
      } catch (error) {
        yield* refuse(undefined, item.line, PARSE_ERROR, `Parse error: ${errorMessage(error)}`);
        continue;
      }
      if (nestedDeeper(value)) yield* refuse(value, '', INVALID_REQUEST, tooDeepError());
      else if (Array.isArray(value))
        await send(errorResponse(null, INVALID_REQUEST, 'JSON-RPC batches are not supported'));
      else if (typeof value !== 'object' || value === null)
        await send(errorResponse(null, INVALID_REQUEST, 'Invalid request: expected a JSON object'));
      // An object: the ACP SDK checks its shape and answers a malformed one (as it does after its own reader).
      else yield value as AnyMessage;
    }
  }

  const writable = new WritableStream<AnyMessage>({
    write: (message) => send(message),
    close: async () => {
      await queue;
      await writer.close();
    },
    abort: (reason) => writer.abort(reason),
  });
  return { readable: ReadableStream.from(messages()), writable };
}
