/** Picks the output format. */
import { JsonFormat } from './json.ts';
import { StreamJsonFormat } from './stream-json.ts';
import { TextFormat } from './text.ts';
import type { FormatContext, OutputFormat } from './types.ts';

/** The names accepted by `--output-format`. */
export type OutputFormatName = 'text' | 'json' | 'stream-json';

export function createOutputFormat(
  name: OutputFormatName,
  verbose: boolean,
  context: FormatContext = {},
): OutputFormat {
  switch (name) {
    case 'stream-json':
      return new StreamJsonFormat();
    case 'json':
      return new JsonFormat(verbose);
    case 'text':
      return new TextFormat(context);
  }
}
export type { OutputFormat, OutputLine, FormatContext } from './types.ts';
export { isProtocolLine } from './types.ts';
