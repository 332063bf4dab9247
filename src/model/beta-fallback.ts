/**
 * Claude Code 2.1.332's answer to an HTTP 400 on a request with its default betas (for gateways and platforms that
 * refuse one), measured with the differential suite's fake API (docs/compat.md):
 *
 * - a 400 whose message names a beta of the request (`Unexpected value(s) \`effort-2025-11-24\` for the
 *   \`anthropic-beta\` header`) sends the request again without that beta and the member it carries (effort:
 *   `output_config`; the display beta: `thinking.display`; context management: `context_management`), and the
 *   session never sends it again;
 * - any other 400 (but those Claude Code recognises by their cause: a prompt too long, an image, the balance) sends
 *   it again without `thinking-token-count`, then also without `thinking-display-updates`;
 *   when those fail too, without `advanced-tool-use` (Claude Code's tool search; agentpipe declares every tool in
 *   full anyway) and the first two back, then without them again: at most 6 requests, the last 400 is the error;
 * - what a request that got through was sent without is left out of the session's later requests too.
 *
 * Nothing of this shows in the stream: the retries are not `api_retry` messages, and they do not count against
 * `CLAUDE_CODE_MAX_RETRIES`. A request with `betaFallback` unset is sent once, as it is.
 */
import { BETAS } from './claude-code-request.ts';
import { ModelError } from './errors.ts';
import type { ModelRequest } from './types.ts';
import type { StreamEvent } from '../messages/types.ts';

/** The betas dropped in turn for a 400 that names none, cumulatively, before the outer step drops tool search. */
const UNCLAIMED = [BETAS.thinkingTokenCount, BETAS.thinkingDisplay];

/** The sets of betas to leave out, in the order Claude Code tries them (the first is the request as it is). */
export function fallbackSteps(betas: readonly string[]): string[][] {
  const inner: string[][] = [[]];
  for (const beta of UNCLAIMED) if (betas.includes(beta)) inner.push([...inner.at(-1)!, beta]);
  if (!betas.includes(BETAS.toolSearch)) return inner;
  return [...inner, ...inner.map((drop) => [BETAS.toolSearch, ...drop])];
}

/** `request` without the betas of `drop` and the members they carry. */
export function withoutBetas(request: ModelRequest, drop: ReadonlySet<string>): ModelRequest {
  if (drop.size === 0 || !request.betas?.some((beta) => drop.has(beta))) return request;
  const out: ModelRequest = { ...request, betas: request.betas.filter((beta) => !drop.has(beta)) };
  if (drop.has(BETAS.effort)) delete out.effort;
  if (drop.has(BETAS.contextManagement)) delete out.contextManagement;
  if (drop.has(BETAS.thinkingDisplay) && out.thinking?.type !== 'disabled' && out.thinking?.display === 'updates') {
    const { display: _display, ...thinking } = out.thinking;
    out.thinking = thinking;
  }
  return out;
}

/** The beta of `betas` a 400's message names, if any. */
export function namedBeta(error: unknown, betas: readonly string[] = []): string | undefined {
  if (!(error instanceof ModelError) || error.status !== 400) return undefined;
  return betas.find((beta) => error.message.includes(beta));
}

/** 400s Claude Code recognises by their cause and answers otherwise (a prompt too long, an image, the balance). */
const KNOWN_CAUSE =
  /prompt is too long|input length and `max_tokens` exceed context limit|image exceeds|credit balance/i;

/** A 400 that names no cause Claude Code recognises: one its betas may have caused. */
const isRefusal = (error: unknown) =>
  error instanceof ModelError && error.status === 400 && !KNOWN_CAUSE.test(error.message);

/** A session's fallback: what its requests leave out from now on. One per provider (a session's). */
export class BetaFallback {
  readonly #dropped = new Set<string>();

  /** The events of `request` sent with `send`, again without optional betas after each 400 (see above). */
  async *stream(
    request: ModelRequest,
    send: (request: ModelRequest) => AsyncIterable<StreamEvent[]>,
  ): AsyncGenerator<StreamEvent[]> {
    if (!request.betaFallback) {
      yield* send(request);
      return;
    }
    const base = withoutBetas(request, this.#dropped);
    const steps = fallbackSteps(base.betas ?? []);
    for (let step = 0; ;) {
      const drop = new Set([...steps[step]!, ...this.#dropped]);
      const attempt = withoutBetas(base, drop);
      let answered = false;
      try {
        for await (const batch of send(attempt)) {
          if (!answered) for (const beta of drop) this.#dropped.add(beta);
          answered = true;
          yield batch;
        }
        return;
      } catch (error) {
        if (answered || !isRefusal(error)) throw error;
        request.abortSignal.throwIfAborted();
        const named = namedBeta(error, attempt.betas);
        if (named) this.#dropped.add(named);
        else if (++step >= steps.length) throw error;
      }
    }
  }
}
