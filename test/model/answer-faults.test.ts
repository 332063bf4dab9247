/**
 * What a provider does wrong after it answered 200, named in the prompt's result, for the
 * Anthropic and the OpenAI-compatible providers (issue 28, B10 and B11):
 * - headers, then nothing: the stall limit for data (AGENTPIPE_STREAM_IDLE_TIMEOUT_MS) runs from
 *   the headers, so the retry comes after it, not after API_TIMEOUT_MS (the first retry came after
 *   602 s);
 * - a web page where the API should be (text/html, or HTML labelled as an event stream): "the API
 *   at … answered HTML (status 200, "<title>")", retried as today's policy retries a cut
 *   connection;
 * - a stream that ends before its end (message_stop, finish_reason) after content came: sent again twice on the
 *   Claude faces' Anthropic policy (nothing of it reached the client), then "the stream ended before message_stop;
 *   the answer is incomplete", not "Unable to connect to API".
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { parseLines } from '../helpers/cli.ts';
import { place, run, STREAM, text } from '../session/helpers.ts';
import {
  anthropicBlock,
  anthropicStart,
  openaiChunk,
  OPENAI_DONE,
  startFakeServer,
  type Reply,
} from './fake-servers.ts';

const PAGE = '<!DOCTYPE html>\n<html><head><title>Sign in to the\n  proxy</title></head><body>…</body></html>';

interface Provider {
  name: string;
  args: (url: string) => string[];
  env: (url: string) => Record<string, string>;
  ok: Reply;
  /** Content, then the stream ends without its end. */
  cut: Reply;
  end: string;
  /**
   * Times a cut stream is sent again before it is named: Claude Code's twice on the Anthropic API (retry.ts
   * `cutStreamResends`); agentpipe's own policy, which an OpenAI-compatible session retries by, none.
   */
  resends: number;
}

const anthropic: Provider = {
  name: 'Anthropic',
  args: () => ['--model', 'claude-sonnet-4-5'],
  env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-faults-0123456789' }),
  ok: text('fine'),
  cut: {
    kind: 'sse',
    frames: [
      anthropicStart('msg_cut', 5, 0),
      ...anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Half an ans' }]).slice(0, 2),
    ],
  },
  end: 'message_stop',
  resends: 2,
};

const openai: Provider = {
  name: 'OpenAI-compatible',
  args: (url) => ['--model', 'local-model', '--base-url', `${url}/v1`],
  env: () => ({}),
  ok: {
    kind: 'sse',
    frames: [openaiChunk({ role: 'assistant', content: 'fine' }), openaiChunk({}, 'stop'), OPENAI_DONE],
  },
  cut: { kind: 'sse', frames: [openaiChunk({ role: 'assistant', content: 'Half an ans' })] },
  end: 'finish_reason',
  resends: 0,
};

/** A fake API answering request n with replies[n] (the last repeats). */
async function api(replies: Reply[]) {
  let n = 0;
  const server = await startFakeServer(() => replies[Math.min(n++, replies.length - 1)]!);
  after(() => server.close());
  return server;
}

async function prompt(provider: Provider, replies: Reply[], env: Record<string, string> = {}) {
  const server = await api(replies);
  const started = Date.now();
  const result = await run(place(), [...STREAM, ...provider.args(server.url), 'hello'], {
    env: { ...provider.env(server.url), ...env },
  });
  const lines = parseLines(result.stdout);
  const results = lines.filter((l) => l.type === 'result');
  assert.equal(results.length, 1, result.stdout + result.stderr);
  assert.equal(lines.at(-1)!.type, 'result');
  return { result, lines, final: results[0]!, server, ms: Date.now() - started };
}

const retries = (lines: Array<Record<string, any>>) =>
  lines.filter((l) => l.type === 'system' && l.subtype === 'api_retry').length;

for (const provider of [anthropic, openai]) {
  test(`${provider.name}: headers, then nothing: retried after the idle limit, not API_TIMEOUT_MS`, async () => {
    const stall: Reply = { kind: 'sse', frames: [], then: 'hang', flushHeaders: true };
    const { final, lines, ms } = await prompt(provider, [stall, provider.ok], {
      API_TIMEOUT_MS: '600000',
      AGENTPIPE_STREAM_IDLE_TIMEOUT_MS: '300',
    });
    assert.equal(retries(lines), 1);
    assert.equal(final.subtype, 'success');
    assert.equal(final.result, 'fine');
    assert.ok(ms < 60_000, `${ms} ms: the retry waited for API_TIMEOUT_MS`);
  });

  for (const [label, page] of [
    ['text/html', { kind: 'page', status: 200, contentType: 'text/html; charset=utf-8', body: PAGE }],
    ['HTML labelled text/event-stream', { kind: 'page', status: 200, contentType: 'text/event-stream', body: PAGE }],
  ] as const) {
    test(`${provider.name}: an HTML answer (${label}) is named, retried as policy says, then the result`, async () => {
      const { final, lines, server } = await prompt(provider, [page], { CLAUDE_CODE_MAX_RETRIES: '1' });
      assert.equal(retries(lines), 1, 'retried once, as CLAUDE_CODE_MAX_RETRIES says');
      assert.equal(server.requests.length, 2);
      assert.equal(final.is_error, true);
      const origin = server.url.replace(/\/$/, '');
      const setting = provider === anthropic ? 'ANTHROPIC_BASE_URL' : '--base-url, OPENAI_BASE_URL';
      assert.equal(
        final.result,
        `API Error: the API at ${origin} answered HTML (status 200, "Sign in to the proxy") instead of an event ` +
          `stream. Check the base URL (${setting}): ` +
          'a proxy, a login page or another web server answered instead of the API.',
      );
    });
  }

  test(`${provider.name}: a stream that ends before ${provider.end} after content: sent again as policy says, then named`, async () => {
    // Nothing of the cut answer reached the client (no block ended): sent again, apart from the retries.
    const cuts = Array.from({ length: provider.resends + 1 }, () => provider.cut);
    const { final, lines } = await prompt(provider, [...cuts, provider.ok], { CLAUDE_CODE_MAX_RETRIES: '0' });
    assert.equal(retries(lines), provider.resends);
    assert.ok(
      lines.filter((l) => l.subtype === 'api_retry').every((l) => l.error === 'unknown' && l.max_retries === 2),
    );
    assert.equal(lines.filter((l) => l.type === 'assistant' && !l.message.model.startsWith('<')).length, 0);
    assert.equal(final.is_error, true);
    assert.equal(
      final.result,
      `API Error: the stream ended before ${provider.end}; the answer is incomplete. ` +
        'This is usually temporary — try again.',
    );
    assert.doesNotMatch(JSON.stringify(lines), /Unable to connect/);
  });
}

test("Anthropic: a cut stream sent again answers the prompt; the cut attempt's tokens count", async () => {
  const { final, lines } = await prompt(anthropic, [anthropic.cut, anthropic.ok], { CLAUDE_CODE_MAX_RETRIES: '0' });
  assert.equal(retries(lines), 1);
  assert.equal(final.subtype, 'success');
  assert.equal(final.result, 'fine');
  // The cut answer's message_start said 5 input tokens: they were spent, and counted beside the answer's.
  const ok = lines.find((l) => l.type === 'assistant')!;
  assert.equal(final.usage.input_tokens, 5 + ok.message.usage.input_tokens);
});

test('an HTML error page (502) is named by its title, not printed whole', async () => {
  const page: Reply = {
    kind: 'page',
    status: 502,
    contentType: 'text/html',
    body: PAGE.replace('Sign in to the\n  proxy', '502 Bad Gateway'),
  };
  const { final } = await prompt(anthropic, [page], { CLAUDE_CODE_MAX_RETRIES: '0' });
  assert.match(
    final.result,
    /^API Error: 502 the server answered HTML \("502 Bad Gateway"\)\. This is a server-side issue/,
  );
  assert.doesNotMatch(final.result, /DOCTYPE|<html/);
});
