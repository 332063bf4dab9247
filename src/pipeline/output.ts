/** Drains the message queue through an output format into a writer, with backpressure. */
import type { OutputFormat, OutputLine } from './format/types.ts';
import type { StreamWriter } from './writer.ts';

/** Resolves once every line was formatted and handed to the writer, and the writer flushed. */
export async function pipeOutput(lines: AsyncIterable<OutputLine>, format: OutputFormat, writer: StreamWriter): Promise<void> {
  for await (const line of lines) {
    const text = format.line(line);
    if (text !== undefined) await writer.write(text);
  }
  const tail = format.end();
  if (tail !== undefined) await writer.write(tail);
  await writer.flush();
}
