/**
 * Who may talk to agentpipe's servers (`serve`, `serve --ui`, `view --live`, the `view` page).
 * Three checks, each closing a door a web page could otherwise open:
 * - Host: the request must name the address the server listens on. A page on a rebinding host
 *   name (evil.example resolving to 127.0.0.1) sends `Host: evil.example`, and is refused.
 * - Origin: a browser request must come from a page this server served (same host and port), or
 *   from an origin allowed with `--allow-origin`. Other web sites are refused.
 * - Token: sessions need the server's token (generated at start unless given or `--no-token`),
 *   as `Authorization: Bearer`, `?token=` or a `agentpipe.token.<token>` WebSocket subprotocol.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { isIP } from 'node:net';

/** The server's access rules. */
export interface AccessPolicy {
  /** The address the server was asked to bind. */
  host: string;
  /** The port it listens on (the real one, after binding port 0). */
  port: number;
  /** Required from clients when set. */
  token?: string;
  /** Browser origins allowed besides the server's own pages, e.g. `https://app.example.com`. */
  allowOrigins?: string[];
}

/** A refusal: the HTTP status and a one-line reason. */
export interface Refusal {
  status: 401 | 403 | 421;
  reason: string;
}

/** A fresh random token for a server started without one. */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = bare(host);
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

const isWildcard = (host: string) => ['0.0.0.0', '::', ''].includes(bare(host));

/** True when the request's Host header names this server. */
export function hostAllowed(req: http.IncomingMessage, policy: AccessPolicy): boolean {
  const header = req.headers.host;
  if (!header) return false;
  let url: URL;
  try {
    url = new URL(`http://${header}`);
  } catch {
    return false;
  }
  const name = bare(url.hostname);
  const port = url.port === '' ? 80 : Number(url.port);
  const originHosts = (policy.allowOrigins ?? []).flatMap((o) => {
    try {
      return [bare(new URL(o).hostname)];
    } catch {
      return [];
    }
  });
  // A host name allowed by --allow-origin may sit behind a proxy on another port.
  if (originHosts.includes(name)) return true;
  if (port !== policy.port) return false;
  if (isLoopback(name) && (isLoopback(policy.host) || isWildcard(policy.host))) return true;
  if (name === bare(policy.host)) return true;
  // Bound to every interface: any IP literal names it; a rebinding attack needs a DNS name.
  return isWildcard(policy.host) && isIP(name) !== 0;
}

/** True when the request carries no Origin (not a browser) or a permitted one. */
export function originAllowed(req: http.IncomingMessage, policy: AccessPolicy): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes "null": sandboxed frames and file:// pages
  }
  if ((policy.allowOrigins ?? []).some((o) => sameOrigin(o, url))) return true;
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') && url.host === req.headers.host && hostAllowed(req, policy)
  );
}

function sameOrigin(allowed: string, url: URL): boolean {
  try {
    return new URL(allowed).origin === url.origin;
  } catch {
    return false;
  }
}

/** The token the request carries, from the Authorization header, `?token=` or the subprotocol. */
function givenToken(req: http.IncomingMessage): string | undefined {
  const header = req.headers.authorization ?? '';
  if (header.toLowerCase().startsWith('bearer ')) return header.slice(7).trim();
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams.get('token');
  if (query !== null) return query;
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim());
  return protocols.find((p) => p.startsWith('agentpipe.token.'))?.slice('agentpipe.token.'.length);
}

/** True when the server needs no token or the request carries the right one. */
export function tokenAllowed(req: http.IncomingMessage, policy: AccessPolicy): boolean {
  if (!policy.token) return true;
  const given = Buffer.from(givenToken(req) ?? '');
  const expected = Buffer.from(policy.token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Checks a request; `needsToken` for anything that opens a session or shows one. */
export function checkAccess(req: http.IncomingMessage, policy: AccessPolicy, needsToken: boolean): Refusal | undefined {
  if (!hostAllowed(req, policy))
    return {
      status: 421,
      reason: `the Host header ${JSON.stringify(req.headers.host ?? '')} does not name this server`,
    };
  if (!originAllowed(req, policy))
    return {
      status: 403,
      reason: `the origin ${req.headers.origin ?? ''} may not use this server (allow it with --allow-origin)`,
    };
  if (needsToken && !tokenAllowed(req, policy)) return { status: 401, reason: 'missing or wrong token' };
  return undefined;
}
