/**
 * The egress proxy's credential filling on real sockets, in-process (no namespace: a loopback
 * listener hands it its connections): two requests on one intercepted tunnel are both filled and
 * both scrubbed; a WebSocket handshake inside the tunnel is filled and the tunnel then carries
 * bytes both ways; an absolute-form request inside a tunnel is refused; plain http:// is not
 * filled without allowPlaintextInject; an echo in the status line's reason phrase or as a header name is scrubbed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import { EgressProxy } from '../../src/sandbox/egress-proxy.ts';
import { parseHostRules } from '../../src/sandbox/hosts.ts';
import { createAuthority } from '../../src/sandbox/mitm-ca.ts';
import type { Credential } from '../../src/sandbox/credentials.ts';

const SECRET = 'real-secret-value-for-the-proxy-0123';

async function setUp(plaintext: boolean) {
  const upstreamCa = await createAuthority();
  const proxyCa = await createAuthority();
  // This test process's proxy must trust the upstream's authority, as it trusts the system's roots.
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), upstreamCa.certificate]);
  const seen: http.IncomingHttpHeaders[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push(req.headers);
    const body = `echo ${String(req.headers['x-key'])}`;
    // /gzip and /zstd answer compressed whatever the request asked (as httpbin's /gzip does).
    if (req.url === '/gzip') return void res.writeHead(200, { 'Content-Encoding': 'gzip' }).end(gzipSync(body));
    if (req.url === '/zstd') return void res.writeHead(200, { 'Content-Encoding': 'zstd' }).end('opaque');
    // /status echoes the value in the status line's reason phrase.
    if (req.url === '/status') return void res.writeHead(200, body).end('ok');
    // /name echoes it as a header's name (a value of token characters is a valid one).
    if (req.url === '/name') return void res.writeHead(200, { [String(req.headers['x-key'])]: 'x' }).end('ok');
    res.end(body);
  };
  const secure = https.createServer(upstreamCa.issue('127.0.0.1'), handler);
  secure.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
    seen.push(req.headers);
    const key = String(req.headers['x-key']);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\nX-Echo: ${key}\r\n\r\n`);
    // "key?" is answered with the key it got: an echo inside the tunnel.
    socket.on('data', (chunk: Buffer) =>
      socket.write(chunk.toString() === 'key?' ? `key:${key};` : `pong:${chunk.toString()}`),
    );
  });
  const plain = http.createServer(handler);
  for (const server of [secure, plain]) server.listen(0, '127.0.0.1');
  await Promise.all([once(secure, 'listening'), once(plain, 'listening')]);
  const ports = [secure, plain].map((server) => (server.address() as net.AddressInfo).port);
  const hosts = parseHostRules(
    ports.map((port) => `127.0.0.1:${port}`),
    assert.fail,
  );
  const credential: Credential = { name: 'K', placeholder: 'agentpipe_credential_K_0123', value: SECRET, hosts };
  const proxy = new EgressProxy({
    rules: { allow: hosts, deny: [] },
    onDenied: () => {},
    credentials: { list: [credential], plaintext, authority: () => Promise.resolve(proxyCa) },
  });
  const entrance = net.createServer((socket) => proxy.acceptHttp(socket));
  entrance.listen(0, '127.0.0.1');
  await once(entrance, 'listening');
  return {
    secure: ports[0]!,
    plain: ports[1]!,
    proxyPort: (entrance.address() as net.AddressInfo).port,
    proxyCa: proxyCa.certificate,
    placeholder: credential.placeholder,
    seen,
    close() {
      proxy.close();
      for (const server of [entrance, secure, plain]) server.close();
    },
  };
}

/** A CONNECT through the proxy to `port`, then TLS trusting `ca`; resolves with the TLS socket. */
async function tunnelTo(proxyPort: number, port: number, ca: string): Promise<tls.TLSSocket> {
  const raw = net.connect(proxyPort, '127.0.0.1');
  raw.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  const [reply] = (await once(raw, 'data')) as [Buffer];
  assert.match(reply.toString(), /^HTTP\/1\.1 200 /);
  const secure = tls.connect({ socket: raw, ca, servername: undefined, host: '127.0.0.1' });
  await once(secure, 'secureConnect');
  return secure;
}

/** Reads from `socket` (leaving it open) until `done` says the text is complete, or it closes. */
function readUntil(socket: net.Socket, done: (text: string) => boolean): Promise<string> {
  let text = '';
  return new Promise((resolve) => {
    const finish = () => {
      socket.off('data', onData);
      resolve(text);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (done(text)) finish();
    };
    socket.on('data', onData);
    socket.once('close', finish);
  });
}

test('two requests on one intercepted tunnel: both filled, both answers scrubbed; an absolute-form one refused', async () => {
  const t = await setUp(false);
  try {
    const socket = await tunnelTo(t.proxyPort, t.secure, t.proxyCa);
    const request = `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Key: ${t.placeholder}\r\n\r\n`;
    socket.write(request + request);
    const text = await readUntil(socket, (got) => got.split(`echo ${t.placeholder}`).length === 3);
    assert.ok(!text.includes(SECRET), text);
    assert.deepEqual(
      t.seen.map((h) => h['x-key']),
      [SECRET, SECRET],
    );
    socket.write(`GET http://evil.example/ HTTP/1.1\r\nHost: evil.example\r\nX-Key: ${t.placeholder}\r\n\r\n`);
    const refused = await readUntil(socket, (got) => got.includes('origin-form'));
    assert.match(refused, /HTTP\/1\.1 400 /);
    assert.equal(t.seen.length, 2, 'nothing more reached the host');
    socket.destroy();
  } finally {
    t.close();
  }
});

test('a WebSocket handshake inside an intercepted tunnel is filled in; what comes back, head and tunnel, is scrubbed', async () => {
  const t = await setUp(false);
  try {
    const socket = await tunnelTo(t.proxyPort, t.secure, t.proxyCa);
    socket.write(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: test\r\nX-Key: ${t.placeholder}\r\n\r\n`,
    );
    const switched = await readUntil(socket, (got) => got.includes('\r\n\r\n'));
    assert.match(switched, /^HTTP\/1\.1 101 /);
    assert.ok(switched.includes(`X-Echo: ${t.placeholder}`) && !switched.includes(SECRET), switched);
    socket.write('ping');
    assert.equal(await readUntil(socket, (got) => got.includes('pong:ping')), 'pong:ping');
    socket.write('key?');
    assert.equal(await readUntil(socket, (got) => got.includes(';')), `key:${t.placeholder};`, 'an echo in the tunnel');
    assert.equal(t.seen[0]?.['x-key'], SECRET);
    socket.destroy();
  } finally {
    t.close();
  }
});

test('plain http:// is filled only with allowPlaintextInject', async () => {
  for (const plaintext of [false, true]) {
    const t = await setUp(plaintext);
    try {
      const raw = net.connect(t.proxyPort, '127.0.0.1');
      raw.write(
        `GET http://127.0.0.1:${t.plain}/ HTTP/1.1\r\nHost: 127.0.0.1:${t.plain}\r\n` +
          `X-Key: ${t.placeholder}\r\nConnection: close\r\n\r\n`,
      );
      const text = await readUntil(raw, () => false);
      assert.equal(t.seen[0]?.['x-key'], plaintext ? SECRET : t.placeholder);
      assert.ok(text.includes(`echo ${t.placeholder}`) && !text.includes(SECRET), text);
    } finally {
      t.close();
    }
  }
});

test('an answer compressed although the request asked for none is decoded and scrubbed; an unknown encoding refused', async () => {
  const t = await setUp(false);
  try {
    const socket = await tunnelTo(t.proxyPort, t.secure, t.proxyCa);
    socket.write(`GET /gzip HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Key: ${t.placeholder}\r\n\r\n`);
    const text = await readUntil(socket, (got) => got.includes(`echo ${t.placeholder}`) || got.includes('0\r\n\r\n'));
    assert.equal(t.seen[0]?.['accept-encoding'], 'identity');
    assert.ok(text.includes(`echo ${t.placeholder}`) && !/content-encoding/i.test(text), text);
    socket.write(`GET /zstd HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Key: ${t.placeholder}\r\n\r\n`);
    const refused = await readUntil(socket, (got) => got.includes('cannot be checked'));
    assert.match(refused, /HTTP\/1\.1 502 [\s\S]*encoded \(zstd\) and cannot be checked for the credential/);
    socket.destroy();
  } finally {
    t.close();
  }
});

test('an echo of the value in the reason phrase of the status line, or as a header name, is scrubbed too', async () => {
  const t = await setUp(false);
  try {
    const socket = await tunnelTo(t.proxyPort, t.secure, t.proxyCa);
    socket.write(`GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Key: ${t.placeholder}\r\nConnection: close\r\n\r\n`);
    const text = await readUntil(socket, () => false);
    assert.equal(t.seen[0]?.['x-key'], SECRET, 'filled in');
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.ok(!text.includes(SECRET), text);
    socket.destroy();
    const again = await tunnelTo(t.proxyPort, t.secure, t.proxyCa);
    again.write(`GET /name HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Key: ${t.placeholder}\r\nConnection: close\r\n\r\n`);
    const named = await readUntil(again, () => false);
    assert.equal(t.seen[1]?.['x-key'], SECRET, 'filled in');
    assert.match(named, new RegExp(`${t.placeholder}: x`, 'i'));
    assert.ok(!named.includes(SECRET), named);
    again.destroy();
  } finally {
    t.close();
  }
});
