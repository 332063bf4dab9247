/**
 * Drains the message queue through an output format into a writer, with backpressure.
 * Lines already waiting in the queue are joined into one write (up to BATCH_CHARS), so a
 * burst of small deltas costs one write instead of one per line.
 */
import type { OutputFormat, OutputLine } from './format/types.ts';
import type { AsyncMessageQueue } from './queue.ts';
import type { TextWriter } from './writer.ts';

const BATCH_CHARS = 64 * 1024;

/** Resolves once every line was formatted and handed to the writer, and the writer flushed. */
export async function pipeOutput(
  lines: AsyncMessageQueue<OutputLine>,
  format: OutputFormat,
  writer: TextWriter,
): Promise<void> {
  let batch = '';
  for await (const first of lines) {
    // One wake-up takes every line already waiting.
    for (let line: OutputLine | undefined = first; line !== undefined; line = lines.take()) {
      const text = format.line(line);
      if (text !== undefined) batch += text;
      if (batch.length >= BATCH_CHARS) {
        await writer.write(batch);
        batch = '';
      }
    }
    if (batch) {
      await writer.write(batch);
      batch = '';
    }
  }
  const tail = format.end();
  if (batch || tail) await writer.write(batch + (tail ?? ''));
  await writer.flush();
}
