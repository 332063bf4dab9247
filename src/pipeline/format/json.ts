/** `--output-format json`: the last result, or with `--verbose` an array of every conversation message. */
import type { OutputFormat, OutputLine } from './types.ts';
import { isProtocolLine } from './types.ts';
import type { AgentMessage, ResultMessage } from '../../messages/types.ts';

export class JsonFormat implements OutputFormat {
  readonly #verbose: boolean;
  readonly #messages: AgentMessage[] = [];
  #last?: ResultMessage;

  constructor(verbose: boolean) {
    this.#verbose = verbose;
  }

  line(line: OutputLine): undefined {
    if (isProtocolLine(line) || line.type === 'stream_event') return undefined;
    const message = line as AgentMessage;
    if (message.type === 'result') this.#last = message;
    if (this.#verbose) this.#messages.push(message);
    return undefined;
  }

  end(): string | undefined {
    if (!this.#last) return undefined;
    return JSON.stringify(this.#verbose ? this.#messages : this.#last) + '\n';
  }
}
