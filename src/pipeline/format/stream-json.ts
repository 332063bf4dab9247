/** `--output-format stream-json`: every line as one JSON object, as soon as it exists. */
import type { OutputFormat, OutputLine } from './types.ts';

export class StreamJsonFormat implements OutputFormat {
  line(line: OutputLine): string {
    return JSON.stringify(line) + '\n';
  }
  end(): undefined {
    return undefined;
  }
}
