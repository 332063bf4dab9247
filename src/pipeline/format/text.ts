/** `--output-format text`: the final answer, or the one-line error of the result's subtype. */
import type { FormatContext, OutputFormat, OutputLine } from './types.ts';
import type { ResultMessage } from '../../messages/types.ts';

export class TextFormat implements OutputFormat {
  readonly #context: FormatContext;
  #last?: ResultMessage;
  #authError?: string;

  constructor(context: FormatContext = {}) {
    this.#context = context;
  }

  line(line: OutputLine): undefined {
    if (line.type === 'result') this.#last = line;
    if (line.type === 'auth_status' && line.error) this.#authError = line.error;
    return undefined;
  }

  end(): string | undefined {
    if (!this.#last) return undefined;
    // A failed prompt after failed credentials: say so, not just "Execution error".
    if (this.#authError && this.#last.subtype === 'error_during_execution')
      return `Authentication error: ${this.#authError}\n`;
    return textOfResult(this.#last, this.#context);
  }
}

/** The text mode rendering of a result, as Claude Code prints it. */
export function textOfResult(result: ResultMessage, context: FormatContext): string {
  switch (result.subtype) {
    case 'success':
      return result.result.endsWith('\n') ? result.result : result.result + '\n';
    case 'error_during_execution':
      return 'Execution error\n';
    case 'error_max_turns':
      return `Error: Reached max turns (${context.maxTurns ?? result.num_turns})\n`;
    case 'error_max_budget_usd':
      return `Error: Exceeded USD budget (${context.maxBudgetUsd ?? result.total_cost_usd})\n`;
    case 'error_max_structured_output_retries':
      return 'Error: Failed to provide valid structured output after maximum retries\n';
  }
}
