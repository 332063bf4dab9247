/**
 * WebFetch against a local HTTP server on 127.0.0.1: HTML to Markdown, redirects on the same host
 * and to another one, HTTP errors, huge and binary bodies, timeouts and interrupts, the cache; and
 * end to end through the scripted model, where the page goes to the model with the prompt and
 * `tool_use_result` has the SDK's WebFetchOutput shape.
 */
import { ToolState } from '../../src/tools/state.ts';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebFetchTool, webFetchTool } from '../../src/tools/builtin/web-fetch.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { ScriptedProvider, type ScriptTurn } from '../../src/model/scripted.ts';
import type { ModelRequest } from '../../src/model/types.ts';
import type { OutputLine } from '../../src/pipeline/format/types.ts';
import type { SessionOptions } from '../../src/session/options.ts';
import { createSession } from '../../src/session/create.ts';
import { SessionRunner } from '../../src/session/runner.ts';
import { ofType, runScripted, toolResults } from '../helpers/agent-run.ts';
import { tempDir } from '../helpers/workspace.ts';

const PAGE = [
  '<!doctype html><html><head><title>T</title>',
  '<style>body { color: red }</style><script>alert("no")</script></head>\n',
  '<body><h1>Hello page</h1><p>Some <strong>bold</strong> text and a <a href="/next">link</a>.</p>',
  '<pre><code>let x = 1;</code></pre>\n',
  '<noscript>enable js</noscript></body></html>',
].join('');

let hits = 0;
const hanging = new Set<ServerResponse>();
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url ?? '/', 'http://x');
  switch (url.pathname) {
    case '/page':
      hits++;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    case '/latin1':
      res
        .writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' })
        .end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      return;
    case '/same':
      res.writeHead(302, { location: '/page' }).end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' }).end();
      return;
    case '/other':
      res.writeHead(301, { location: `http://localhost:${port()}/page` }).end();
      return;
    case '/missing':
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>nope</h1>');
      return;
    case '/busy':
      res.writeHead(429, { 'retry-after': '30' }).end();
      return;
    case '/image':
      res
        .writeHead(200, { 'content-type': 'image/png', 'content-length': '8' })
        .end(Buffer.from('89504e470d0a1a0a', 'hex'));
      return;
    case '/nul':
      res.writeHead(200).end(Buffer.from([0x61, 0x00, 0x62]));
      return;
    case '/huge': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      let sent = 0;
      const more = () => {
        while (sent < 12 && res.write(chunk)) sent++;
        if (sent >= 12) res.end();
        else
          res.once('drain', () => {
            sent++;
            more();
          });
      };
      res.on('error', () => {});
      more();
      return;
    }
    case '/hang':
      hanging.add(res);
      return;
    default:
      res.writeHead(500).end();
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = () => (server.address() as AddressInfo).port;
const base = `http://127.0.0.1:${port()}`;
after(() => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  server.close();
});

const ctx = (signal = new AbortController().signal): ToolContext => ({
  cwd: '/',
  signal,
  sessionId: 's',
  toolUseId: 't',
  state: new ToolState(),
});
const text = (content: unknown) => String(content);

test('an HTML page comes back as Markdown (scripts, styles and noscript dropped), with the WebFetchOutput fields', async () => {
  const tool = createWebFetchTool();
  const result = await tool.call({ url: `${base}/page`, prompt: 'What is the heading?' }, ctx());
  assert.equal(result.isError, undefined);
  const out = text(result.content);
  assert.match(out, /^Prompt: What is the heading\?/);
  assert.match(out, /# Hello page/);
  assert.match(out, /Some \*\*bold\*\* text and a \[link\]\(\/next\)\./);
  assert.match(out, /```\nlet x = 1;\n```/);
  assert.doesNotMatch(out, /alert|color: red|enable js/);
  const data = result.data as Record<string, unknown>;
  assert.deepEqual(Object.keys(data).sort(), ['bytes', 'code', 'codeText', 'durationMs', 'result', 'url']);
  assert.deepEqual(
    { ...data, durationMs: 0 },
    { bytes: Buffer.byteLength(PAGE), code: 200, codeText: 'OK', result: out, durationMs: 0, url: `${base}/page` },
  );
});

test('text in another charset is decoded by its charset', async () => {
  const result = await createWebFetchTool().call({ url: `${base}/latin1`, prompt: 'p' }, ctx());
  assert.match(text(result.content), /café/);
});

test('a redirect on the same host is followed; one to another host is reported with the new URL', async () => {
  const tool = createWebFetchTool();
  const same = await tool.call({ url: `${base}/same`, prompt: 'p' }, ctx());
  assert.match(text(same.content), /# Hello page/);
  assert.equal((same.data as { code: number }).code, 200);
  const other = await tool.call({ url: `${base}/other`, prompt: 'the heading' }, ctx());
  assert.equal(other.isError, undefined);
  const target = `http://localhost:${port()}/page`;
  assert.equal(
    text(other.content),
    `REDIRECT DETECTED: The URL redirects to a different host.\n\n` +
      `Original URL: ${base}/other\nRedirect URL: ${target}\nStatus: 301 Moved Permanently\n\n` +
      `To complete your request, fetch the redirect URL with WebFetch again:\n` +
      `- url: "${target}"\n- prompt: "the heading"`,
  );
  assert.deepEqual(
    { ...(other.data as object), durationMs: 0 },
    {
      bytes: Buffer.byteLength(text(other.content)),
      code: 301,
      codeText: 'Moved Permanently',
      result: text(other.content),
      durationMs: 0,
      url: `${base}/other`,
    },
  );
  const loop = await tool.call({ url: `${base}/loop`, prompt: 'p' }, ctx());
  assert.equal(loop.isError, true);
  assert.match(text(loop.content), /Too many redirects \(exceeded 10\)/);
});

test('an HTTP error status is an answer with its code, as in Claude Code', async () => {
  const tool = createWebFetchTool();
  const missing = await tool.call({ url: `${base}/missing`, prompt: 'p' }, ctx());
  assert.equal(missing.isError, undefined);
  assert.match(
    text(missing.content),
    /^The server returned HTTP 404 Not Found\.\n\nThe response body was not retrieved\./,
  );
  assert.deepEqual(
    { ...(missing.data as object), durationMs: 0 },
    {
      bytes: 0,
      code: 404,
      codeText: 'Not Found',
      result: text(missing.content),
      durationMs: 0,
      url: `${base}/missing`,
    },
  );
  const busy = await tool.call({ url: `${base}/busy`, prompt: 'p' }, ctx());
  assert.match(text(busy.content), /^The server returned HTTP 429 Too Many Requests\.\nRetry-After: 30\n/);
});

test('binary content, bad URLs, refused connections and unknown hosts are clear is_error results', async () => {
  const tool = createWebFetchTool();
  const cases: Array<[string, RegExp]> = [
    [`${base}/image`, /is image\/png, 8 bytes, not a text page/],
    [`${base}/nul`, /looks binary/],
    [
      'not a url',
      /^<tool_use_error>Invalid URL "not a url"\. The URL provided could not be parsed\.<\/tool_use_error>$/,
    ],
    ['ftp://example.com/x', /only http and https URLs/],
    [`http://user:pw@127.0.0.1:${port()}/page`, /user name or password/],
    ['https://intranet/', /the host name is not a domain/],
    [`https://example.com/${'a'.repeat(2000)}`, /longer than 2000 characters/],
    ['http://127.0.0.1:1/', /failed/],
    ['https://agentpipe-test.invalid/', /could not be resolved \(DNS|timed out/],
  ];
  for (const [url, expected] of cases) {
    const result = await tool.call({ url, prompt: 'p' }, ctx());
    assert.equal(result.isError, true, url);
    assert.match(text(result.content), expected, url);
    assert.match(text(result.content), /^<tool_use_error>/, url);
  }
  const refused = createServer();
  await new Promise<void>((resolve) => refused.listen(0, '127.0.0.1', resolve));
  const closedPort = (refused.address() as AddressInfo).port;
  await new Promise((resolve) => refused.close(resolve));
  const result = await tool.call({ url: `http://127.0.0.1:${closedPort}/`, prompt: 'p' }, ctx());
  assert.match(text(result.content), /the connection was refused \(ECONNREFUSED\)/);
});

test('at most 10 MB is read; the rest is cut with a notice, and the model sees at most 100k characters with an offset to read on', async () => {
  const result = await createWebFetchTool().call({ url: `${base}/huge`, prompt: 'p' }, ctx());
  assert.equal(result.isError, undefined);
  assert.equal((result.data as { bytes: number }).bytes, 10 * 1024 * 1024);
  const out = text(result.content);
  assert.ok(out.length < 101_000, `${out.length} characters`);
  assert.match(
    out,
    // eslint-disable-next-line max-len -- an expected message as one regex literal reads best whole
    /\[Content truncated due to length\.\.\.\] \(characters 0 to 100000 of \d+; call WebFetch again with offset: 100000 to read on\)/,
  );
  const last = await createWebFetchTool({ maxBytes: 1000 }).call(
    { url: `${base}/huge`, prompt: 'p', offset: 900 },
    ctx(),
  );
  assert.match(
    text(last.content),
    // eslint-disable-next-line max-len -- an expected message as one regex literal reads best whole
    /\n---\na{100}\n\n\[Content truncated: the page is larger than 1000 bytes; only the first 1000 bytes were read\]\n---$/,
  );
  const past = await createWebFetchTool({ maxBytes: 1000 }).call(
    { url: `${base}/huge`, prompt: 'p', offset: 5000 },
    ctx(),
  );
  assert.equal(past.isError, true);
});

test('a server that never answers times out; an interrupt stops the fetch', async () => {
  const started = Date.now();
  const timed = await createWebFetchTool({ timeoutMs: 200 }).call({ url: `${base}/hang`, prompt: 'p' }, ctx());
  assert.equal(timed.isError, true);
  assert.match(text(timed.content), /timed out after 0\.2 s/);
  assert.ok(Date.now() - started < 5000);
  const abort = new AbortController();
  setTimeout(() => abort.abort(new DOMException('Interrupted', 'AbortError')), 100);
  await assert.rejects(createWebFetchTool().call({ url: `${base}/hang`, prompt: 'p' }, ctx(abort.signal)), {
    name: 'AbortError',
  });
});

test('pages are cached per URL for 15 minutes (a new cache, or an expired entry, fetches again)', async () => {
  const tool = createWebFetchTool();
  const before = hits;
  await tool.call({ url: `${base}/page`, prompt: 'a' }, ctx());
  const again = await tool.call({ url: `${base}/page`, prompt: 'b' }, ctx());
  assert.equal(hits, before + 1);
  assert.match(text(again.content), /^Prompt: b/);
  const expired = createWebFetchTool({ cacheTtlMs: 0 });
  await expired.call({ url: `${base}/page`, prompt: 'a' }, ctx());
  await expired.call({ url: `${base}/page`, prompt: 'a' }, ctx());
  assert.equal(hits, before + 3);
});

/** A session on the scripted model that records every request it gets. */
async function runRecorded(
  turns: ScriptTurn[],
  options: SessionOptions,
): Promise<{ out: OutputLine[]; requests: ModelRequest[] }> {
  const requests: ModelRequest[] = [];
  let next = 0;
  const out: OutputLine[] = [];
  const send = async (line: OutputLine) => {
    out.push(line);
  };
  const source = { next: (request: ModelRequest) => (requests.push(request), turns[next++]) };
  const session = await createSession({
    options: { persistSession: false, ...options },
    provider: new ScriptedProvider(source),
    model: 'scripted',
    emit: send,
  });
  const runner = new SessionRunner(session, send, { log: () => {} });
  await runner.run(
    (async function* () {
      yield {
        ok: true as const,
        message: { type: 'user' as const, message: { role: 'user' as const, content: 'go' }, parent_tool_use_id: null },
      };
    })(),
  );
  await session.close();
  return { out, requests };
}

test('end to end: the page and the prompt go to the session model; its answer is the result, in the WebFetchOutput shape', async () => {
  const url = `${base}/page?e2e=1`;
  const { out, requests } = await runRecorded(
    [
      { tool_calls: [{ name: 'WebFetch', id: 'toolu_f', input: { url, prompt: 'What is the heading?' } }] },
      { text: 'The heading is "Hello page".', usage: { input_tokens: 500, output_tokens: 7 } },
      { text: 'done' },
    ],
    { cwd: tempDir(), permissionMode: 'bypassPermissions' },
  );
  assert.equal(requests.length, 3);
  const asked = requests[1]!;
  assert.deepEqual(asked.tools, []);
  const prompt = String(asked.messages[0]!.content);
  assert.match(prompt, /^\nWeb page content:\n---\nT\n\n# Hello page\n\nSome \*\*bold\*\* text/);
  assert.match(
    prompt,
    /\n---\n\nWhat is the heading\?\n\nProvide a concise response based only on the content above\./,
  );
  const result = toolResults(out).get('toolu_f')!;
  assert.notEqual(result.is_error, true);
  assert.equal(result.content, 'The heading is "Hello page".');
  const data = result.line.tool_use_result as Record<string, unknown>;
  assert.deepEqual(
    { ...data, durationMs: 0 },
    {
      bytes: Buffer.byteLength(PAGE),
      code: 200,
      codeText: 'OK',
      result: 'The heading is "Hello page".',
      durationMs: 0,
      url,
    },
  );
  assert.equal(typeof data.durationMs, 'number');
  const final = ofType(out, 'result')[0]!;
  assert.ok(final.usage.input_tokens >= 500, 'the page request counts in the usage');
  const init = ofType(out, 'system', 'init')[0]!;
  assert.ok(init.tools.includes('WebFetch'));
});

test('end to end: a redirect elsewhere and a 404 need no model; a binary page is an is_error result, its tool_use_result "Error: …" as Claude Code gives a failed call', async () => {
  const { out, requests } = await runRecorded(
    [
      {
        tool_calls: [
          { name: 'WebFetch', id: 'toolu_r', input: { url: `${base}/other`, prompt: 'p' } },
          { name: 'WebFetch', id: 'toolu_404', input: { url: `${base}/missing`, prompt: 'p' } },
          { name: 'WebFetch', id: 'toolu_bin', input: { url: `${base}/image`, prompt: 'p' } },
        ],
      },
      { text: 'done' },
    ],
    { cwd: tempDir(), permissionMode: 'bypassPermissions' },
  );
  assert.equal(requests.length, 2);
  const results = toolResults(out);
  assert.equal(results.get('toolu_r')!.line.tool_use_result.code, 301);
  assert.match(results.get('toolu_r')!.content, /^REDIRECT DETECTED/);
  assert.equal(results.get('toolu_404')!.line.tool_use_result.code, 404);
  assert.notEqual(results.get('toolu_404')!.is_error, true);
  assert.equal(results.get('toolu_bin')!.is_error, true);
  assert.match(
    String(results.get('toolu_bin')!.line.tool_use_result),
    /^Error: http:\/\/127\.0\.0\.1:\d+\/image is image\/png/,
  );
});

test('end to end: a failed page request still answers, with the page', async () => {
  const { out } = await runRecorded(
    [
      { tool_calls: [{ name: 'WebFetch', id: 'toolu_f', input: { url: `${base}/page?fail=1`, prompt: 'p' } }] },
      { error: { status: 400, message: 'bad request' } },
      { text: 'done' },
    ],
    { cwd: tempDir(), permissionMode: 'bypassPermissions' },
  );
  const result = toolResults(out).get('toolu_f')!;
  assert.notEqual(result.is_error, true);
  assert.match(
    result.content,
    // eslint-disable-next-line max-len -- an expected message as one regex literal reads best whole
    /^\[The prompt could not be applied: the model request failed \(400 bad request\)\. The page content follows\.\]\n\nT\n\n# Hello page/,
  );
});

test('the CLI asks for WebFetch in the default mode (denied with -p), runs it with a domain rule', async () => {
  const dir = tempDir();
  const turns = [
    { tool_calls: [{ name: 'WebFetch', id: 'toolu_w', input: { url: `${base}/page?cli=1`, prompt: 'p' } }] },
    { text: 'summary' },
    { text: 'done' },
  ];
  const denied = await runScripted(dir, turns);
  const last = denied.lines.at(-1)!;
  assert.deepEqual(
    last.permission_denials.map((d: { tool_name: string }) => d.tool_name),
    ['WebFetch'],
  );
  const allowed = await runScripted(dir, turns, ['--allowedTools', 'WebFetch(domain:127.0.0.1)']);
  const result = toolResults(allowed.lines).get('toolu_w')!;
  assert.equal(result.content, 'summary');
  assert.equal(result.line.tool_use_result.code, 200);
});

test('the built-in tool is one instance for the process', () => {
  assert.equal(webFetchTool.name, 'WebFetch');
  assert.equal(webFetchTool.isReadOnly({}), false);
});
