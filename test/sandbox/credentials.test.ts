/**
 * `sandbox.credentials` through the real CLI, bubblewrap, the egress proxy and curl: a sandboxed
 * command sees only a placeholder (its environment, every /proc/<pid>/environ it can see); a
 * request to a host listed for the credential arrives with the real value (a header, a Basic
 * credential, the query), over HTTPS the proxy terminates with its own authority and over plain
 * HTTP; an allowed host not listed for it gets the placeholder; a response echoing the value comes
 * back with the placeholder; nothing the model receives holds the value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createAuthority } from '../../src/sandbox/mitm-ca.ts';
import { runScripted, toolResults } from '../helpers/agent-run.ts';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';

const SECRET = 'ghp_the-real-secret-0123456789abcdef';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** A server that records each request and answers with what it got (an echo, as httpbin's /anything). */
async function echoServer(options?: https.ServerOptions) {
  const seen: Seen[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.setHeader('X-Echo', String(req.headers.authorization ?? ''));
    res.end(JSON.stringify({ authorization: req.headers.authorization, url: req.url, key: req.headers['x-key'] }));
  };
  const server = options ? https.createServer(options, handler) : http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, seen, close: () => server.close() };
}

/**
 * Three servers on loopback (HTTPS under a test authority twice, plain HTTP once) and the variables
 * that make agentpipe's proxy (Node) and curl inside the sandbox (the bundle it is given) trust them.
 */
async function fixture(dir: string) {
  const upstreamCa = await createAuthority();
  const listed = await echoServer(upstreamCa.issue('127.0.0.1'));
  const other = await echoServer(upstreamCa.issue('127.0.0.1'));
  const plain = await echoServer();
  const caFile = path.join(dir, 'upstream-ca.pem');
  writeFileSync(caFile, upstreamCa.certificate);
  const bundle = path.join(dir, 'roots.pem');
  writeFileSync(bundle, `${tls.rootCertificates.join('\n')}\n${upstreamCa.certificate}`);
  return {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile, SSL_CERT_FILE: bundle },
    listed,
    other,
    plain,
    close: () => [listed, other, plain].forEach((server) => server.close()),
  };
}

const bash = (command: string) => ({ tool_calls: [{ name: 'Bash', input: { command } }] });
/** curl through the egress proxy even to a loopback address (NO_PROXY names it), printing headers and body. */
const curl = (args: string) => `curl -sS -i --noproxy '' -x "$HTTPS_PROXY" ${args}`;

test('a sandboxed command uses a credential it cannot read: filled in for its hosts only, scrubbed from answers', async () => {
  const dir = tempDir();
  const { env, listed, other, plain, close } = await fixture(dir);
  try {
    const hosts = [listed, other, plain].map((server) => `127.0.0.1:${server.port}`);
    const settings = {
      sandbox: {
        network: { allowedDomains: hosts },
        credentials: {
          envVars: [
            { name: 'AP_TEST_TOKEN', mode: 'mask', injectHosts: [hosts[0], hosts[2]] },
            { name: 'AP_DENIED', mode: 'deny' },
          ],
          allowPlaintextInject: true,
        },
      },
    };
    const run = await runScripted(
      dir,
      [
        bash(
          'printf "env=%s\\n" "$AP_TEST_TOKEN"; ' +
            'echo "self=$(tr "\\0" "\\n" < /proc/self/environ | grep -c the-real-secret)"; ' +
            'echo "any=$(cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c the-real-secret)"; ' +
            'echo "denied=${AP_DENIED-unset}"',
        ),
        bash(curl(`-H "Authorization: Bearer $AP_TEST_TOKEN" "https://${hosts[0]}/echo?key=$AP_TEST_TOKEN"`)),
        bash(curl(`-u "x-access-token:$AP_TEST_TOKEN" -H "Host: evil.example" https://${hosts[0]}/basic`)),
        bash(curl(`-H "Authorization: Bearer $AP_TEST_TOKEN" https://${hosts[1]}/other`)),
        bash(curl(`-H "X-Key: $AP_TEST_TOKEN" http://${hosts[2]}/plain`)),
        { text: 'done' },
      ],
      ['--permission-mode', 'bypassPermissions', '--settings', JSON.stringify(settings)],
      {
        env: { ...env, AP_TEST_TOKEN: SECRET, AP_DENIED: SECRET },
        timeoutMs: 60_000,
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const outputs = [...toolResults(run.lines).values()].map((result) => JSON.stringify(result.content));
    assert.equal(outputs.length, 5, run.stdout);
    const placeholder = /agentpipe_credential_AP_TEST_TOKEN_[0-9a-f]{32}/.exec(outputs[0]!)?.[0];
    assert.ok(placeholder, `the command sees a placeholder: ${outputs[0]}`);
    assert.match(outputs[0]!, /self=0/);
    assert.match(outputs[0]!, /any=0/);
    assert.match(outputs[0]!, /denied=unset/);
    // The listed host got the value: in a bearer header, the query, a Basic credential.
    assert.equal(listed.seen[0]?.headers.authorization, `Bearer ${SECRET}`);
    assert.equal(listed.seen[0]?.url, `/echo?key=${SECRET}`);
    assert.equal(listed.seen[0]?.headers['accept-encoding'], 'identity');
    const basic = String(listed.seen[1]?.headers.authorization).replace(/^Basic /, '');
    assert.equal(Buffer.from(basic, 'base64').toString(), `x-access-token:${SECRET}`);
    assert.equal(listed.seen[1]?.headers.host, hosts[0], 'a request carrying the value names its own host');
    assert.equal(plain.seen[0]?.headers['x-key'], SECRET, 'plain HTTP to a listed host');
    // An allowed host that is not listed for it gets the placeholder, and its tunnel is not intercepted.
    assert.equal(other.seen[0]?.headers.authorization, `Bearer ${placeholder}`);
    // The echoes came back with the placeholder in the headers and the body.
    assert.match(outputs[1]!, new RegExp(`X-Echo: Bearer ${placeholder}`, 'i'));
    assert.ok(outputs[1]!.includes(`authorization\\":\\"Bearer ${placeholder}`), outputs[1]);
    assert.match(outputs[4]!, new RegExp(placeholder));
    const encoded = Buffer.from(`x-access-token:${SECRET}`).toString('base64');
    assert.ok(!run.stdout.includes(SECRET) && !run.stdout.includes(encoded), 'nothing the model gets holds it');
    assert.ok(!run.stderr.includes(SECRET), 'nor stderr');
  } finally {
    close();
  }
});

test('outside the sandbox (--sandbox off) the variable is withheld, not passed as it is', async () => {
  const dir = tempDir();
  const settings = {
    sandbox: { credentials: { envVars: [{ name: 'AP_TEST_TOKEN', mode: 'mask', injectHosts: ['api.example.com'] }] } },
  };
  const run = await runScripted(
    dir,
    [bash('echo "value=[${AP_TEST_TOKEN-unset}]"'), { text: 'done' }],
    ['--sandbox', 'off', '--permission-mode', 'bypassPermissions', '--settings', JSON.stringify(settings)],
    { env: { ...process.env, AP_TEST_TOKEN: SECRET } },
  );
  assert.equal(run.code, 0, run.stderr);
  const [output] = [...toolResults(run.lines).values()].map((result) => JSON.stringify(result.content));
  assert.match(output!, /value=\[unset\]/);
  assert.ok(!run.stdout.includes(SECRET));
});

test('docs/security.md: the credentials example gives the results it shows', async () => {
  const doc = readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8');
  const start = doc.indexOf('\n## Credentials commands use without holding them\n');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const settings = /```json\n([\s\S]*?)```/.exec(section)![1]!;
  const session = /```console\n([\s\S]*?)```/.exec(section)![1]!;
  const dir = tempDir();
  const { env, listed, close } = await fixture(dir);
  try {
    // api.github.com is the local server; curl is pointed at the proxy (NO_PROXY names loopback addresses).
    const local = (text: string) =>
      text
        .replaceAll('api.github.com', `127.0.0.1:${listed.port}`)
        .replaceAll('curl -s ', `curl -s --noproxy '' -x "$HTTPS_PROXY" `);
    const steps = session
      .trimEnd()
      .split('\n')
      .reduce<Array<{ command: string; expected: string[] }>>((out, line) => {
        if (line.startsWith('$ ')) out.push({ command: local(line.slice(2)), expected: [] });
        else out.at(-1)!.expected.push(line);
        return out;
      }, []);
    assert.equal(steps.length, 2);
    const run = await runScripted(
      dir,
      [...steps.map((step) => bash(step.command)), { text: 'done' }],
      ['--permission-mode', 'bypassPermissions', '--settings', local(settings)],
      { env: { ...env, GITHUB_TOKEN: SECRET, AWS_SECRET_ACCESS_KEY: SECRET }, timeoutMs: 60_000 },
    );
    assert.equal(run.code, 0, run.stderr);
    const results = [...toolResults(run.lines).values()].map((result) => String(result.content).split('\n'));
    steps.forEach((step, i) => {
      assert.equal(results[i]!.length, step.expected.length, results[i]!.join('\n'));
      step.expected.forEach((want, j) => assert.ok(results[i]![j]!.startsWith(want.replace(/…$/, '')), results[i]![j]));
    });
    assert.equal(listed.seen[0]?.headers.authorization, `Bearer ${SECRET}`);
    assert.ok(!run.stdout.includes(SECRET));
  } finally {
    close();
  }
});
