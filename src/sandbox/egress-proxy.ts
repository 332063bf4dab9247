/**
 * The egress proxy on agentpipe's side of a sandbox's network namespace: an HTTP proxy (CONNECT
 * tunnels and absolute-form `http://` requests, WebSocket upgrades included) and a SOCKS5 proxy,
 * as Claude Code's sandbox runtime runs them. It listens on nothing of the host's: connections
 * come from listeners inside the namespace (./netns.ts hands them over). Each target is decided
 * by name first (./hosts.ts: deniedDomains, then allowedDomains), then resolved here and refused
 * when it leads to this machine unless the entry names the machine; the connection goes to the
 * address that was checked (no second lookup a rebinding name could change). A refused HTTP
 * request gets `403 Forbidden` with the reason in its body and `X-Proxy-Error:
 * blocked-by-allowlist`; a refused SOCKS request gets "connection not allowed by ruleset". An
 * allowed name that does not resolve, or a host that does not answer, is no refusal: 502 Bad
 * Gateway (SOCKS: host unreachable), and not reported.
 */
import { errorCode } from '../process/errors.ts';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import { Socks5Server } from '@pondwader/socks5-server';
import { canonicalHost, decideHost, isThisMachine, namesThisMachine, splitHostPort, type HostRules } from './hosts.ts';
import { credentialsFor, type Credential } from './credentials.ts';
import { forwardRequest, Interceptor, tunnel, upgradeOver } from './egress-forward.ts';
import type { CertificateAuthority } from './mitm-ca.ts';

/** A connection the proxy refused. */
export interface Denial {
  host: string;
  port: number;
  reason: string;
}

/** What the proxy needs. */
export interface EgressProxyOptions {
  rules: HostRules;
  onDenied(denial: Denial): void;
  /** A name's addresses (default: the system resolver, every address). */
  lookup?: (host: string) => Promise<string[]>;
  /** `sandbox.credentials`: placeholders filled in for their hosts (./credentials.ts). */
  credentials?: {
    list: readonly Credential[];
    /** Fill values in over plain `http://` too (`allowPlaintextInject`). */
    plaintext: boolean;
    /** The authority that answers intercepted HTTPS tunnels (made on first use). */
    authority(): Promise<CertificateAuthority>;
  };
}

/** Where to connect; or refused by the rules (403, reported); or allowed but not reachable (502, not a refusal). */
type Target = { address: string } | { denied: string } | { unreachable: string };

export class EgressProxy {
  readonly #options: EgressProxyOptions;
  readonly #http: http.Server;
  readonly #socks: Socks5Server;
  readonly #sockets = new Set<net.Socket>();
  readonly #interceptor: Interceptor | undefined;

  constructor(options: EgressProxyOptions) {
    this.#options = options;
    const credentials = options.credentials;
    if (credentials?.list.length) this.#interceptor = new Interceptor(() => credentials.authority());
    this.#http = http.createServer({ requireHostHeader: false });
    this.#http.on('request', (req, res) => void this.#request(req, res));
    this.#http.on('connect', (req, socket, head) => void this.#connect(req, socket as net.Socket, head));
    this.#http.on('upgrade', (req, socket, head) => void this.#upgrade(req, socket as net.Socket, head));
    this.#http.on('clientError', (_error, socket) => socket.destroy());
    this.#socks = new Socks5Server()
      .setRulesetValidator(async (connection) => {
        const target = await this.#open(connection.destAddress, connection.destPort);
        if ('denied' in target) return false;
        if ('address' in target) (connection.metadata as { address?: string }).address = target.address;
        return true;
      })
      .setConnectionHandler((connection, sendStatus) => {
        const address = (connection.metadata as { address?: string }).address;
        if (address === undefined) return sendStatus('HOST_UNREACHABLE');
        // What a client sends before the reply (the library resumes the socket after this handler) is kept.
        const socket = connection.socket as net.Socket;
        const early: Buffer[] = [];
        const keep = (chunk: Buffer) => early.push(chunk);
        socket.on('data', keep);
        this.#dial(
          address,
          connection.destPort,
          (upstream) => {
            socket.off('data', keep);
            sendStatus('REQUEST_GRANTED');
            for (const chunk of early) upstream.write(chunk);
            tunnel(socket, upstream);
          },
          (error) => sendStatus(error.code === 'ECONNREFUSED' ? 'CONNECTION_REFUSED' : 'HOST_UNREACHABLE'),
        );
      });
  }

  /** A connection to the namespace's HTTP proxy port. */
  acceptHttp(socket: net.Socket): void {
    this.#track(socket);
    this.#http.emit('connection', socket);
  }

  /** A connection to the namespace's SOCKS5 port. */
  acceptSocks(socket: net.Socket): void {
    this.#track(socket).on('error', () => {});
    this.#socks._handleConnection(socket);
  }

  /** A connection to a forwarded port: to `host:port` as it is (an allowed API host on this machine's loopback). */
  acceptForward(socket: net.Socket, host: string, port: number): void {
    this.#track(socket).on('error', () => {});
    this.#dial(
      host,
      port,
      (upstream) => tunnel(socket, upstream),
      () => socket.destroy(),
    );
  }

  /** Ends every connection. */
  close(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  /** Decides, resolves and checks one target; reports a refusal. */
  async #open(rawHost: string, port: number): Promise<Target> {
    const deny = (reason: string): Target => {
      this.#options.onDenied({ host: canonicalHost(rawHost) ?? rawHost, port, reason });
      return { denied: reason };
    };
    const decision = decideHost(this.#options.rules, rawHost, port);
    if (!decision.allowed) return deny(decision.reason);
    const host = canonicalHost(rawHost)!;
    let addresses: string[];
    try {
      addresses = net.isIP(host) ? [host] : await (this.#options.lookup ?? systemLookup)(host);
    } catch (error) {
      const code = errorCode(error) ?? String(error);
      return { unreachable: `${host} could not be resolved (${code})` };
    }
    if (!addresses.length) return { unreachable: `${host} has no address` };
    const local = addresses.find(isThisMachine);
    if (local !== undefined && !namesThisMachine(decision.rule))
      return deny(
        `${host} resolves to ${local}, an address of this machine (list it as an address or localhost to allow it)`,
      );
    return { address: addresses[0]! };
  }

  async #connect(req: http.IncomingMessage, socket: net.Socket, head: Buffer): Promise<void> {
    socket.on('error', () => {});
    const { host, port } = splitHostPort(req.url ?? '');
    if (port === undefined) return refuse(socket, 400, `CONNECT needs host:port, got ${req.url ?? ''}`);
    const credentials = this.#credentialsFor(host, port);
    if (credentials.length && this.#interceptor) {
      const target = await this.#open(host, port);
      if ('denied' in target) return refuse(socket, 403, target.denied);
      if ('unreachable' in target) return refuse(socket, 502, target.unreachable);
      const name = canonicalHost(host)!;
      return this.#interceptor
        .intercept(socket, head, { host: name, port, address: target.address, credentials })
        .catch((error: unknown) => refuse(socket, 502, `cannot answer TLS for ${name}: ${String(error)}`));
    }
    await this.#dialFor(socket, host, port, (upstream) => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      tunnel(socket, upstream);
    });
  }

  async #request(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = absoluteUrl(req.url);
    if (!url) return void res.writeHead(400, plain).end('agentpipe sandbox proxy: expected an absolute http:// URL\n');
    const port = Number(url.port || 80);
    const target = await this.#open(url.hostname, port);
    if ('denied' in target) return void res.writeHead(403, blocked).end(`agentpipe sandbox: ${target.denied}\n`);
    if ('unreachable' in target)
      return void res.writeHead(502, plain).end(`agentpipe sandbox proxy: ${target.unreachable}\n`);
    const credentials = this.#plaintextCredentialsFor(url.hostname, port);
    const host = canonicalHost(url.hostname) ?? url.hostname;
    forwardRequest(req, res, `${url.pathname}${url.search}`, {
      host,
      port,
      address: target.address,
      credentials,
      secure: false,
    });
  }

  /** An absolute-form request asking to upgrade (a WebSocket over plain HTTP): tunneled after its head. */
  async #upgrade(req: http.IncomingMessage, socket: net.Socket, head: Buffer): Promise<void> {
    socket.on('error', () => {});
    const url = absoluteUrl(req.url);
    if (!url) return refuse(socket, 400, 'expected an absolute http:// URL');
    await this.#dialFor(socket, url.hostname, Number(url.port || 80), (upstream) => {
      const credentials = this.#plaintextCredentialsFor(url.hostname, Number(url.port || 80));
      const request = {
        method: req.method,
        url: `${url.pathname}${url.search}`,
        rawHeaders: withoutProxyHeaders(req.rawHeaders),
      };
      upgradeOver(upstream, socket, request, head, credentials);
    });
  }

  /** The credentials whose values may go to `rawHost:port`. */
  #credentialsFor(rawHost: string, port: number): Credential[] {
    const list = this.#options.credentials?.list;
    const host = list?.length ? canonicalHost(rawHost) : undefined;
    return host ? credentialsFor(list!, host, port) : [];
  }

  /** The same for plain `http://`: none unless `allowPlaintextInject` (the host's identity is not verified there). */
  #plaintextCredentialsFor(rawHost: string, port: number): Credential[] {
    return this.#options.credentials?.plaintext ? this.#credentialsFor(rawHost, port) : [];
  }

  /** For a raw client socket (CONNECT, an upgrade): decides and dials `host:port`, or answers 403 or 502 on it. */
  async #dialFor(socket: net.Socket, host: string, port: number, opened: (upstream: net.Socket) => void) {
    const target = await this.#open(host, port);
    if ('denied' in target) return refuse(socket, 403, target.denied);
    if ('unreachable' in target) return refuse(socket, 502, target.unreachable);
    this.#dial(target.address, port, opened, (error) => refuse(socket, 502, `${host}:${port}: ${error.message}`));
  }

  /** Connects to `address:port`; `failed` only for an error before the connection opened. */
  #dial(
    address: string,
    port: number,
    opened: (upstream: net.Socket) => void,
    failed: (error: NodeJS.ErrnoException) => void,
  ): void {
    const upstream = this.#track(net.connect({ host: address, port }));
    const onError = (error: NodeJS.ErrnoException) => failed(error);
    upstream.once('error', onError);
    upstream.once('connect', () => {
      upstream.off('error', onError);
      opened(upstream);
    });
  }

  #track(socket: net.Socket): net.Socket {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    return socket;
  }
}

const plain = { 'Content-Type': 'text/plain; charset=utf-8' };
const blocked = { ...plain, 'X-Proxy-Error': 'blocked-by-allowlist' };

async function systemLookup(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true })).map((entry) => entry.address);
}

/** An absolute-form `http://` request target; undefined otherwise (https goes through CONNECT). */
function absoluteUrl(target: string | undefined): URL | undefined {
  try {
    const url = new URL(target ?? '');
    return url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Raw headers without the proxy's own (an upgrade keeps Connection and Upgrade). */
function withoutProxyHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if (!/^proxy-/i.test(raw[i]!)) out.push(raw[i]!, raw[i + 1]!.replace(/[\r\n]/g, ''));
  return out;
}

/** Ends a CONNECT or upgrade socket with a status and the reason as its body. */
function refuse(socket: net.Socket, status: 400 | 403 | 502, reason: string): void {
  const body = `agentpipe sandbox: ${reason}\n`;
  const title = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[status];
  const extra = status === 403 ? 'X-Proxy-Error: blocked-by-allowlist\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: text/plain; charset=utf-8\r\n${extra}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
