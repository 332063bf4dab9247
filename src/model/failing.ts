/** A provider that fails every request with one error (missing credentials, bad config). */
import type { StreamEvent } from '../messages/types.ts';
import type { ModelProvider } from './types.ts';

export class FailingProvider implements ModelProvider {
  readonly specificationVersion = 'v1';
  readonly provider: string;
  readonly apiKeySource = 'none';
  readonly #error: Error;
  constructor(provider: string, error: Error) {
    this.provider = provider;
    this.#error = error;
  }
  async *stream(): AsyncGenerator<StreamEvent> {
    throw this.#error;
  }
}
