/**
 * How the egress proxy passes an HTTP request on (./egress-proxy.ts): without hop-by-hop headers,
 * to the address it checked, with the placeholders of `sandbox.credentials` filled in for the
 * hosts they are for (./credentials.ts); and the HTTPS interception that lets it do the same
 * inside a CONNECT tunnel to such a host: the tunnel is answered with TLS under the proxy's own
 * authority (./mitm-ca.ts), each request inside goes on over a new TLS connection to the host,
 * verified as usual. A response to a request that carried a value comes back with the value
 * replaced by its placeholder (headers and body; the request then asks for no compression).
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Transform } from 'node:stream';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { fillIn, fillInHeaders, scrubber, scrubHeaders, scrubText, swapsFor, type Credential } from './credentials.ts';
import type { CertificateAuthority } from './mitm-ca.ts';

/** Connection headers that concern one hop only (RFC 9110 7.6.1), never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const plain = { 'Content-Type': 'text/plain; charset=utf-8' };

/** Raw headers without the hop-by-hop ones (and those the Connection header names). */
export function withoutHopByHop(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const name of raw[i + 1]!.split(',')) named.add(name.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** A request's head as bytes to write on a tunnel (line breaks in values dropped). */
export function requestHead(method: string | undefined, target: string, headers: readonly string[]): string {
  let text = `${method ?? 'GET'} ${target} HTTP/1.1\r\n`;
  for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]!.replace(/[\r\n]/g, '')}\r\n`;
  return `${text}\r\n`;
}

/** Pipes `a` and `b` both ways; either closing or failing ends both. */
export function tunnel(a: net.Socket, b: net.Socket, back?: Transform): void {
  a.pipe(b);
  // What comes back from `b` passes through `back` when given (a credential's value scrubbed from it).
  (back ? b.pipe(back) : b).pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.once('close', end);
  b.once('close', end);
  a.on('error', end);
  b.on('error', end);
}

/**
 * A WebSocket handshake (`req`, origin-form `url`) written on `upstream` with the placeholders filled in, then both
 * ways tunneled. When it carried a value, what comes back (the answer's head and every frame) is scrubbed: a frame
 * holding the value changes length and breaks the connection, so the value never arrives whole.
 */
export function upgradeOver(
  upstream: net.Socket,
  socket: net.Socket,
  req: { method?: string; url: string; rawHeaders: readonly string[] },
  head: Buffer,
  credentials: readonly Credential[],
): void {
  const filled = fillInHeaders(req.rawHeaders, credentials);
  const url = fillIn(req.url, credentials);
  upstream.write(requestHead(req.method, url, filled.headers));
  if (head.length) upstream.write(head);
  const carried = filled.changed || url !== req.url;
  tunnel(socket, upstream, carried ? scrubber(swapsFor(credentials, filled.swaps)) : undefined);
}

/** Where a request goes: the host as the client named it, the address the proxy checked. */
export interface ForwardTarget {
  host: string;
  port: number;
  address: string;
  /** The credentials whose values may go to this host. */
  credentials: readonly Credential[];
  /** Over TLS (an intercepted CONNECT) or plain HTTP. */
  secure: boolean;
}

/** Passes `req` (origin-form target `path`) on to `target` and its response back. */
export function forwardRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  path: string,
  target: ForwardTarget,
): void {
  const filledPath = fillIn(path, target.credentials);
  const filled = fillInHeaders(withoutHopByHop(req.rawHeaders), target.credentials);
  const carried = filled.changed || filledPath !== path;
  // A request that carries a value names the host it goes to: another Host could route it elsewhere
  // behind a shared front end (domain fronting).
  const headers = carried ? identityEncoding(withHost(filled.headers, target)) : filled.headers;
  const options = { host: target.address, port: target.port, method: req.method, path: filledPath, headers };
  const upstream = target.secure
    ? https.request({ ...options, ...serverName(target.host), setHost: false, agent: false })
    : http.request({ ...options, setHost: false, agent: false });
  const swaps = carried ? swapsFor(target.credentials, filled.swaps) : [];
  upstream.on('response', (response) => {
    let raw = withoutHopByHop(response.rawHeaders);
    if (!carried) {
      res.writeHead(response.statusCode ?? 502, response.statusMessage, raw);
      return void response.pipe(res);
    }
    // A host may compress although asked not to: the body is decoded before it is searched, or refused.
    const decoder = decoderFor(response.headers['content-encoding']);
    if (decoder === null) {
      response.destroy();
      const encoding = String(response.headers['content-encoding']);
      return void res
        .writeHead(502, plain)
        .end(`agentpipe sandbox proxy: the answer is encoded (${encoding}) and cannot be checked for the credential\n`);
    }
    // The body may change length when a value is replaced: sent chunked instead, decoded.
    raw = scrubHeaders(raw, swaps).filter((text, i, all) => notContentLength(text, i, all) && notEncoding(i, all));
    // The reason phrase too: a host may echo the value there.
    res.writeHead(response.statusCode ?? 502, scrubText(response.statusMessage ?? '', swaps), raw);
    decoder?.on('error', () => res.destroy());
    (decoder ? response.pipe(decoder) : response).pipe(scrubber(swaps)).pipe(res);
  });
  upstream.on('error', (error) => {
    if (res.headersSent) res.destroy();
    else res.writeHead(502, plain).end(`agentpipe sandbox proxy: ${target.host}:${target.port}: ${error.message}\n`);
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

/** A stream that decodes `encoding`; undefined for none (identity); null for one it does not know. */
function decoderFor(encoding: string | undefined): Transform | undefined | null {
  const name = encoding?.trim().toLowerCase();
  if (!name || name === 'identity') return undefined;
  if (name === 'gzip' || name === 'x-gzip') return zlib.createGunzip();
  if (name === 'deflate') return zlib.createInflate();
  if (name === 'br') return zlib.createBrotliDecompress();
  return null;
}

function notEncoding(index: number, raw: readonly string[]): boolean {
  return raw[index % 2 ? index - 1 : index]!.toLowerCase() !== 'content-encoding';
}

/** TLS's server name for `host` (none for an address, which is checked against the certificate's IP entries). */
function serverName(host: string): { servername?: string } {
  return net.isIP(host) ? {} : { servername: host };
}

function withHost(raw: readonly string[], target: ForwardTarget): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() !== 'host') out.push(raw[i]!, raw[i + 1]!);
  const name = net.isIPv6(target.host) ? `[${target.host}]` : target.host;
  const usual = target.port === (target.secure ? 443 : 80);
  return ['Host', usual ? name : `${name}:${target.port}`, ...out];
}

function identityEncoding(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() !== 'accept-encoding') out.push(raw[i]!, raw[i + 1]!);
  return [...out, 'Accept-Encoding', 'identity'];
}

/** Drops the content-length pair from a flat raw header list (filter callback over the flat list). */
function notContentLength(_text: string, index: number, raw: readonly string[]): boolean {
  const nameIndex = index % 2 ? index - 1 : index;
  return raw[nameIndex]!.toLowerCase() !== 'content-length';
}

/**
 * Answers CONNECT tunnels to hosts with credentials with TLS of the proxy's own authority and
 * forwards each request inside them (one HTTP server for every intercepted tunnel).
 */
export class Interceptor {
  readonly #server = http.createServer({ requireHostHeader: false });
  readonly #targets = new WeakMap<object, ForwardTarget>();
  readonly #authority: () => Promise<CertificateAuthority>;

  constructor(authority: () => Promise<CertificateAuthority>) {
    this.#authority = authority;
    this.#server.on('request', (req, res) => this.#request(req, res));
    this.#server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) =>
      this.#upgrade(req, socket, head),
    );
    this.#server.on('clientError', (_error, socket) => socket.destroy());
  }

  /** Takes over an accepted CONNECT `socket` to `target` (answers 200, then speaks TLS on it). */
  async intercept(socket: net.Socket, head: Buffer, target: Omit<ForwardTarget, 'secure'>): Promise<void> {
    const context = await (await this.#authority()).contextFor(target.host);
    if (socket.destroyed) return;
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) socket.unshift(head);
    const secure = new tls.TLSSocket(socket, { isServer: true, secureContext: context, ALPNProtocols: ['http/1.1'] });
    secure.on('error', () => secure.destroy());
    this.#targets.set(secure, { ...target, secure: true });
    this.#server.emit('connection', secure);
  }

  #request(req: http.IncomingMessage, res: http.ServerResponse): void {
    const target = this.#targets.get(req.socket);
    if (!target) return void res.destroy();
    // Inside the tunnel the target is the tunnel's host: an absolute-form URL naming another is refused.
    if (!req.url?.startsWith('/'))
      return void res.writeHead(400, plain).end('agentpipe sandbox proxy: expected an origin-form request target\n');
    forwardRequest(req, res, req.url, target);
  }

  /** A WebSocket (wss://) handshake: passed on with its placeholders filled in, then tunneled. */
  #upgrade(req: http.IncomingMessage, socket: net.Socket, head: Buffer): void {
    const target = this.#targets.get(socket);
    if (!target || !req.url?.startsWith('/')) return void socket.destroy();
    const upstream = tls.connect({ host: target.address, port: target.port, ...serverName(target.host) });
    // Written now, sent once the handshake is done, before anything the tunnel passes on.
    upgradeOver(
      upstream,
      socket,
      { method: req.method, url: req.url, rawHeaders: req.rawHeaders },
      head,
      target.credentials,
    );
  }
}
