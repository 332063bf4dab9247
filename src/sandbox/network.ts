/**
 * Network for sandboxed commands that may reach some hosts: one network namespace with its
 * egress proxy per distinct grant (the hosts allowed and denied) per session, started on the
 * first command that needs it and closed with the session (`closeSandbox`). Commands get the
 * proxies in their environment (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY as socks5h, and their
 * lower-case forms; NODE_USE_ENV_PROXY for Node), with the namespace's own loopback left direct
 * (NO_PROXY): a host on this machine's loopback allowed with its port (`127.0.0.1:8080`, a
 * wrapped CLI's local API) is forwarded there, at the same port. Every refusal is one stderr line
 * per host and port, and the commands running at the time hear of it (`watch`).
 */
import { errorMessage } from '../process/errors.ts';
import { findExecutable } from '../process/executable.ts';
import { holdForSession, type SandboxConfig } from './config.ts';
import { EgressProxy, type Denial } from './egress-proxy.ts';
import { parseHostRules, ruleMatches, type HostRule } from './hosts.ts';
import { startNamespace, type NetworkNamespace } from './netns.ts';
import type { Credential } from './credentials.ts';
import type { CertificateAuthority } from './mitm-ca.ts';

/** The hosts a command may reach: entries of allowedDomains' syntax (with an optional port). */
export interface NetworkGrant {
  allow: string[];
  deny: string[];
}

/** The credentials the proxy fills in (./credentials.ts), and whether over plain HTTP too. */
export interface Injection {
  list: readonly Credential[];
  plaintext: boolean;
}

/** How a command reaches the allowed hosts. */
export interface Egress {
  /** The argv prefix that starts it inside the namespace. */
  join: string[];
  /** The proxy variables to add to its environment. */
  env: Record<string, string>;
  /** Collects the refusals from now until `stop()`. */
  watch(): { stop(): Denial[] };
}

interface Entry {
  ns: NetworkNamespace;
  proxy: EgressProxy;
  watchers: Set<(denial: Denial) => void>;
  /** The variables that make commands trust the proxy's authority (with credentials only). */
  trust: Record<string, string>;
}

const entries = new WeakMap<SandboxConfig, Map<string, Promise<Entry | undefined>>>();
const warned = new WeakMap<SandboxConfig, Set<string>>();

/** Warns once per session for each distinct line. */
function warnOnce(config: SandboxConfig, line: string): void {
  let seen = warned.get(config);
  if (!seen) warned.set(config, (seen = new Set()));
  if (seen.has(line)) return;
  seen.add(line);
  config.warn(line);
}

/** The egress for `grant` in `config`'s session; undefined (with one warning) when it cannot start. */
export async function egressFor(
  config: SandboxConfig,
  grant: NetworkGrant,
  bwrap: string,
  credentials: Injection = { list: [], plaintext: false },
): Promise<Egress | undefined> {
  let map = entries.get(config);
  if (!map) entries.set(config, (map = new Map<string, Promise<Entry | undefined>>()));
  const key = JSON.stringify([[...new Set(grant.allow)].sort(), [...new Set(grant.deny)].sort()]);
  let pending = map.get(key);
  if (!pending) {
    pending = open(config, grant, bwrap, credentials, () => map.delete(key));
    map.set(key, pending);
  }
  const entry = await pending;
  const join = entry?.ns.join();
  if (!entry || !join) {
    if (entry) map.delete(key); // the holder went away: the next command starts a new one
    return undefined;
  }
  return {
    join,
    env: { ...proxyEnv(entry.ns), ...entry.trust },
    watch() {
      const seen: Denial[] = [];
      const watcher = (denial: Denial) => seen.push(denial);
      entry.watchers.add(watcher);
      return {
        stop: () => {
          entry.watchers.delete(watcher);
          return seen;
        },
      };
    },
  };
}

async function open(
  config: SandboxConfig,
  grant: NetworkGrant,
  bwrap: string,
  credentials: Injection,
  forget: () => void,
): Promise<Entry | undefined> {
  const invalid = (why: string) => warnOnce(config, `sandbox.network: ignored ${why}`);
  const rules = { allow: parseHostRules(grant.allow, invalid), deny: parseHostRules(grant.deny, invalid) };
  const nsenter = findExecutable('nsenter', config.env ?? process.env);
  if (!nsenter) {
    warnOnce(config, 'sandbox: nsenter (util-linux) is not installed; sandboxed commands run without network');
    forget();
    return undefined;
  }
  const watchers = new Set<(denial: Denial) => void>();
  let trust: Record<string, string> = {};
  if (credentials.list.length) {
    try {
      trust = await processTrust(config.env ?? process.env);
    } catch (error) {
      warnOnce(config, `sandbox.credentials: cannot make the proxy's certificate authority (${errorMessage(error)})`);
    }
  }
  const proxy = new EgressProxy({
    ...(credentials.list.length && trust.SSL_CERT_FILE ? { credentials: { ...credentials, authority } } : {}),
    rules,
    onDenied: (denial) => {
      warnOnce(config, `sandbox: refused a sandboxed command's connection: ${denial.reason}`);
      for (const watcher of watchers) watcher(denial);
    },
  });
  const forwards = forwardedPorts(rules.allow, rules.deny);
  let release = () => {};
  try {
    const ns = await startNamespace({
      bwrap,
      nsenter,
      forwards: [...forwards.keys()],
      handlers: {
        http: (socket) => proxy.acceptHttp(socket),
        socks: (socket) => proxy.acceptSocks(socket),
        forward: (port, socket) => proxy.acceptForward(socket, forwards.get(port)!, port),
        ended: (why) => {
          warnOnce(config, `sandbox: the network namespace of sandboxed commands ended (${why})`);
          proxy.close();
          release();
          forget();
        },
      },
    });
    release = holdForSession(config, () => {
      ns.close();
      proxy.close();
    });
    return { ns, proxy, watchers, trust };
  } catch (error) {
    warnOnce(config, `sandbox: ${errorMessage(error)}; sandboxed commands run without network`);
    forget();
    return undefined;
  }
}

let processAuthority: Promise<CertificateAuthority> | undefined;
let trusted: Promise<Record<string, string>> | undefined;

/** This process's authority for intercepted HTTPS (made once, on the first command with credentials). */
function authority(): Promise<CertificateAuthority> {
  processAuthority ??= import('./mitm-ca.ts').then((ca) => ca.createAuthority());
  return processAuthority;
}

/** The trust variables for this process's authority (its files written once). */
function processTrust(env: Record<string, string | undefined>): Promise<Record<string, string>> {
  trusted ??= authority().then(async (ca) => (await import('./credential-trust.ts')).trustEnv(ca.certificate, env));
  return trusted;
}

/** Allowed hosts on this machine's loopback with a port: forwarded from the namespace's loopback (port → host). */
function forwardedPorts(allow: HostRule[], deny: HostRule[]): Map<number, string> {
  const ports = new Map<number, string>();
  for (const rule of allow) {
    if (rule.port === undefined || ports.has(rule.port) || rule.wildcard) continue;
    const loopback = rule.host === 'localhost' || rule.host === '::1' || /^127\./.test(rule.host);
    const denied = deny.some((d) => ruleMatches(d, rule.host, rule.port!));
    if (loopback && !denied) ports.set(rule.port, rule.host === 'localhost' ? '127.0.0.1' : rule.host);
  }
  return ports;
}

/** The proxy variables (both cases: curl, git and Python read the lower-case ones, others the upper). */
function proxyEnv(ns: NetworkNamespace): Record<string, string> {
  const http = `http://127.0.0.1:${ns.httpPort}`;
  const socks = `socks5h://127.0.0.1:${ns.socksPort}`;
  const direct = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: direct,
    no_proxy: direct,
    NODE_USE_ENV_PROXY: '1',
  };
}
