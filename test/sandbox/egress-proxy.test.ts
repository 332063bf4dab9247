/**
 * The egress proxy on real sockets (without a namespace: a loopback listener hands it its
 * connections as the namespace's would): CONNECT tunnels, absolute-form requests, SOCKS5, the 403
 * a refused request gets and the refusal reported; a name that resolves to this machine is
 * refused unless the entry names the machine; hop-by-hop headers stay behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { EgressProxy, type Denial } from '../../src/sandbox/egress-proxy.ts';
import { parseHostRules } from '../../src/sandbox/hosts.ts';

/** An upstream HTTP server that echoes the request line and the headers it got. */
async function upstream(): Promise<{ port: number; close(): void }> {
  const server = http.createServer((req, res) => res.end(JSON.stringify({ url: req.url, headers: req.headers })));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** A proxy behind a loopback listener (`kind` picks the entrance), with names resolved by `names`. */
async function proxy(
  allow: string[],
  kind: 'http' | 'socks',
  names: Record<string, string[]> = {},
  deny: string[] = [],
) {
  const denials: Denial[] = [];
  const egress = new EgressProxy({
    rules: { allow: parseHostRules(allow, assert.fail), deny: parseHostRules(deny, assert.fail) },
    onDenied: (d) => denials.push(d),
    lookup: async (host) => {
      const found = names[host];
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found;
    },
  });
  const entrance = net.createServer((socket) =>
    kind === 'http' ? egress.acceptHttp(socket) : egress.acceptSocks(socket),
  );
  entrance.listen(0, '127.0.0.1');
  await once(entrance, 'listening');
  const port = (entrance.address() as net.AddressInfo).port;
  return {
    port,
    denials,
    close: () => {
      egress.close();
      entrance.close();
    },
  };
}

/** Sends `text` on a new connection to `port` and reads until the other side closes or `until` matches. */
async function exchange(port: number, text: string | Buffer, until?: RegExp): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(text);
  let got = '';
  socket.setEncoding('latin1');
  return new Promise((resolve) => {
    socket.on('data', (chunk: string) => {
      got += chunk;
      if (until?.test(got)) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('close', () => resolve(got));
    socket.on('error', () => resolve(got));
  });
}

test('CONNECT to an allowed host tunnels; to another, 403 with the reason, reported', async () => {
  const up = await upstream();
  const p = await proxy([`127.0.0.1:${up.port}`, 'missing.example'], 'http');
  try {
    const tunneled = await exchange(
      p.port,
      `CONNECT 127.0.0.1:${up.port} HTTP/1.1\r\nHost: x\r\n\r\n` +
        'GET /through HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n',
    );
    assert.match(tunneled, /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    assert.match(tunneled, /"url":"\/through"/);
    const refused = await exchange(p.port, `CONNECT 127.0.0.1:${up.port + 1} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.match(refused, /^HTTP\/1\.1 403 Forbidden\r\n/);
    assert.match(refused, /X-Proxy-Error: blocked-by-allowlist/);
    assert.match(refused, /agentpipe sandbox: the address 127\.0\.0\.1:\d+ is not in sandbox\.network\.allowedDomains/);
    const evil = await exchange(p.port, 'CONNECT evil.example:443 HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(evil, /403 Forbidden[\s\S]*evil\.example:443 is not in sandbox\.network\.allowedDomains/);
    const missing = await exchange(p.port, 'CONNECT missing.example:443 HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(missing, /^HTTP\/1\.1 502 Bad Gateway\r\n[\s\S]*missing\.example could not be resolved \(ENOTFOUND\)/);
    assert.doesNotMatch(missing, /X-Proxy-Error/, 'an allowed host that does not resolve is no refusal');
    assert.deepEqual(
      p.denials.map((d) => `${d.host}:${d.port}`),
      [`127.0.0.1:${up.port + 1}`, 'evil.example:443'],
    );
  } finally {
    p.close();
    up.close();
  }
});

test('an absolute-form request is forwarded without hop-by-hop headers; a refused one gets 403', async () => {
  const up = await upstream();
  const p = await proxy([`api.test:${up.port}`], 'http', { 'api.test': ['127.0.0.1'] });
  const p2 = await proxy([`localhost:${up.port}`], 'http', { localhost: ['127.0.0.1'] });
  try {
    const request = (port: number, host: string) =>
      exchange(
        port,
        `GET http://${host}:${up.port}/path?q=1 HTTP/1.1\r\nHost: ${host}:${up.port}\r\n` +
          `Proxy-Authorization: Basic c2VjcmV0\r\nX-Drop: 1\r\nConnection: close, X-Drop\r\n\r\n`,
      );
    // api.test resolves to this machine's loopback: refused, the entry does not name the machine.
    const rebinding = await request(p.port, 'api.test');
    assert.match(rebinding, /^HTTP\/1\.1 403 Forbidden/);
    assert.match(rebinding, /api\.test resolves to 127\.0\.0\.1, an address of this machine/);
    // localhost names the machine: allowed, and only the end-to-end headers arrive.
    const forwarded = await request(p2.port, 'localhost');
    assert.match(forwarded, /^HTTP\/1\.1 200 OK/);
    const body = JSON.parse(forwarded.slice(forwarded.indexOf('\r\n\r\n') + 4)) as {
      url: string;
      headers: Record<string, string>;
    };
    assert.equal(body.url, '/path?q=1');
    assert.equal(body.headers.host, `localhost:${up.port}`);
    assert.equal(body.headers['proxy-authorization'], undefined);
    assert.equal(body.headers['x-drop'], undefined);
    const origin = await exchange(p2.port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(origin, /^HTTP\/1\.1 400 /, 'an origin-form request is not proxied');
  } finally {
    p.close();
    p2.close();
    up.close();
  }
});

test('an upgrade (a WebSocket over http://) is tunneled to an allowed host after its head; a refused one gets 403', async () => {
  // An upstream that switches protocols and then echoes what it gets, upper-cased.
  const server = http.createServer();
  server.on('upgrade', (req, socket: net.Socket, head: Buffer) => {
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\nX-Path: ${req.url}\r\n\r\n`,
    );
    // What came with the request's head (the proxy passes it on) or after it, echoed upper-cased.
    if (head.length) socket.end(head.toString().toUpperCase());
    else socket.on('data', (chunk: Buffer) => socket.end(chunk.toString().toUpperCase()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  const p = await proxy([`127.0.0.1:${port}`], 'http');
  try {
    const head = (target: string) =>
      `GET http://${target}/socket HTTP/1.1\r\nHost: ${target}\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n`;
    const upgraded = await exchange(p.port, `${head(`127.0.0.1:${port}`)}hello`, /HELLO$/);
    assert.match(upgraded, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    assert.match(upgraded, /X-Path: \/socket\r\n/, 'the upstream got the origin-form path');
    assert.match(upgraded, /\r\n\r\nHELLO$/);
    const refused = await exchange(p.port, head('evil.example:80'));
    assert.match(
      refused,
      /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*evil\.example:80 is not in sandbox\.network\.allowedDomains/,
    );
    assert.deepEqual(
      p.denials.map((d) => `${d.host}:${d.port}`),
      ['evil.example:80'],
    );
  } finally {
    p.close();
    server.close();
  }
});

test('SOCKS5: an allowed name connects (resolved by the proxy); a denied one is "not allowed by ruleset"', async () => {
  const up = await upstream();
  const p = await proxy(
    ['*.allowed.test'],
    'socks',
    { 'api.allowed.test': ['127.0.0.1'], 'x.allowed.test': ['127.0.0.1'] },
    ['x.allowed.test'],
  );
  const p2 = await proxy([`127.0.0.1:${up.port}`], 'socks');
  try {
    const connect = (port: number, host: string) => {
      const name = Buffer.from(host);
      const portBytes = Buffer.from([up.port >> 8, up.port & 0xff]);
      return Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, name.length]), name, portBytes]);
    };
    const denied = await exchange(p.port, connect(p.port, 'x.allowed.test'));
    assert.deepEqual([...Buffer.from(denied, 'latin1').subarray(0, 4)], [5, 0, 5, 2], 'greeting, then refused (2)');
    // Allowed by name, but it resolves to this machine: refused as well.
    const local = await exchange(p.port, connect(p.port, 'api.allowed.test'));
    assert.equal(Buffer.from(local, 'latin1')[3], 2);
    const ok = await exchange(
      p2.port,
      Buffer.concat([
        Buffer.from([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, up.port >> 8, up.port & 0xff]),
        Buffer.from('GET /socks HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n'),
      ]),
      /"url":"\/socks"/,
    );
    assert.match(ok, /"url":"\/socks"/);
    assert.deepEqual(
      p.denials.map((d) => d.host),
      ['x.allowed.test', 'api.allowed.test'],
    );
  } finally {
    p.close();
    p2.close();
    up.close();
  }
});
