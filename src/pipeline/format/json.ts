/**
 * `--output-format json`: the last result, or with `--verbose` an array of every conversation message. As in Claude
 * Code 2.1.332, a result here has no `model_usage_since_last_result` (only stream-json runs set it).
 */
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
    let message = line as AgentMessage;
    if (message.type === 'result') {
      const { model_usage_since_last_result: _since, ...result } = message;
      message = this.#last = result;
    }
    if (this.#verbose) this.#messages.push(message);
    return undefined;
  }

  end(): string | undefined {
    if (!this.#last) return undefined;
    return JSON.stringify(this.#verbose ? this.#messages : this.#last) + '\n';
  }
}
