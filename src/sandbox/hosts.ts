/**
 * Which hosts a sandboxed command may reach, as Claude Code's sandbox decides it: `deniedDomains`
 * first, then `allowedDomains`; an entry is a domain (`example.com`, exactly that name) or a
 * wildcard (`*.example.com`, every subdomain but not the domain itself), compared in their ASCII
 * (punycode) form, case-insensitively and without a trailing dot; an IP address matches only an
 * entry that is that address (a domain never lets an IP literal through). agentpipe adds an
 * optional port (`example.com:8443`, `[::1]:8080`): without one, any port.
 *
 * Names are matched before they are resolved, so a denied name is refused without a DNS query.
 * An allowed name is resolved by the proxy, which refuses it when it leads to this machine
 * (loopback, link-local, unspecified, or an address of one of its interfaces) unless the entry
 * that allowed it names the machine itself (`localhost`, or an address as such).
 */
import net from 'node:net';
import os from 'node:os';

/** One entry of `allowedDomains` or `deniedDomains`, parsed. */
export interface HostRule {
  /** As written (for messages). */
  text: string;
  /** The domain in ASCII lowercase (without `*.`), or the IP address in canonical form. */
  host: string;
  /** `*.host`: subdomains of `host`, not `host` itself. */
  wildcard: boolean;
  /** The entry is an IP address (it matches that address only). */
  ip: boolean;
  port?: number;
}

/** The rules of one network namespace: what it may reach. */
export interface HostRules {
  allow: HostRule[];
  deny: HostRule[];
}

/** Whether a connection may go ahead, by name (before resolution). */
export type HostDecision = { allowed: true; rule: HostRule } | { allowed: false; reason: string };

/**
 * `host` in canonical form: ASCII (punycode) lowercase without a trailing dot, or an IP address in
 * canonical form; undefined when it is not a host.
 */
export function canonicalHost(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (!bare || /[\s/?#@\\]/.test(bare)) return undefined;
  try {
    // The WHATWG URL parser does IDNA, lowercasing and the IPv4 forms (0x7f.1, 2130706433).
    const hostname = new URL(`http://${net.isIPv6(bare) ? `[${bare}]` : bare}/`).hostname;
    const plain = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname.replace(/\.$/, '');
    return plain || undefined;
  } catch {
    return undefined;
  }
}

/** `host:port`, `[v6]:port`, a bare host or IPv6 address: its parts (the host as written). */
export function splitHostPort(text: string): { host: string; port?: number } {
  const v6 = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(text);
  if (v6) return { host: v6[1]!, ...(v6[2] !== undefined ? { port: Number(v6[2]) } : {}) };
  if (net.isIPv6(text)) return { host: text };
  const withPort = /^(.*):(\d{1,5})$/.exec(text);
  return withPort ? { host: withPort[1]!, port: Number(withPort[2]) } : { host: text };
}

/** Parses one entry; a string saying why when it is not a host. */
export function parseHostRule(text: string): HostRule | string {
  const { host: written, port } = splitHostPort(text.trim());
  if (port !== undefined && (port < 1 || port > 65535)) return `${text}: the port must be 1-65535`;
  const wildcard = written.startsWith('*.');
  const host = canonicalHost(wildcard ? written.slice(2) : written);
  if (!host || host.includes('*')) return `${text}: not a domain, a *.domain or an IP address`;
  const ip = net.isIP(host) !== 0;
  if (ip && wildcard) return `${text}: a wildcard needs a domain, not an address`;
  return { text, host, wildcard, ip, ...(port !== undefined ? { port } : {}) };
}

/** Parses entries; the invalid ones are reported through `invalid` and left out. */
export function parseHostRules(texts: readonly string[], invalid: (why: string) => void): HostRule[] {
  const rules: HostRule[] = [];
  for (const text of texts) {
    const rule = parseHostRule(text);
    if (typeof rule === 'string') invalid(rule);
    else rules.push(rule);
  }
  return rules;
}

/** True when `rule` covers `host` (canonical) on `port`. */
export function ruleMatches(rule: HostRule, host: string, port: number): boolean {
  if (rule.port !== undefined && rule.port !== port) return false;
  if (rule.ip || net.isIP(host) !== 0) return rule.ip && rule.host === host;
  return rule.wildcard ? host.endsWith(`.${rule.host}`) : host === rule.host;
}

/** Denied entries first, then allowed ones; anything else is refused. */
export function decideHost(rules: HostRules, rawHost: string, port: number): HostDecision {
  const host = canonicalHost(rawHost);
  if (!host) return { allowed: false, reason: `${rawHost} is not a valid host name` };
  const denied = rules.deny.find((rule) => ruleMatches(rule, host, port));
  if (denied) return { allowed: false, reason: `${host}:${port} is in sandbox.network.deniedDomains (${denied.text})` };
  const allowed = rules.allow.find((rule) => ruleMatches(rule, host, port));
  if (allowed) return { allowed: true, rule: allowed };
  const what = net.isIP(host) ? 'the address' : 'the host';
  return {
    allowed: false,
    reason:
      `${what} ${host}:${port} is not in sandbox.network.allowedDomains` +
      (net.isIP(host) ? ' (an address must be listed as such)' : ''),
  };
}

/** True when `rule` names this machine itself, so it may lead there: `localhost`, or an address listed as such. */
export function namesThisMachine(rule: HostRule): boolean {
  return rule.ip || rule.host === 'localhost' || rule.host.endsWith('.localhost');
}

let local: net.BlockList | undefined;

/** Addresses of this machine: loopback, unspecified, link-local (cloud metadata too), and each interface's. */
function localAddresses(): net.BlockList {
  if (local) return local;
  local = new net.BlockList();
  local.addSubnet('127.0.0.0', 8, 'ipv4');
  local.addSubnet('0.0.0.0', 8, 'ipv4');
  local.addSubnet('169.254.0.0', 16, 'ipv4');
  local.addAddress('::1', 'ipv6');
  local.addAddress('::', 'ipv6');
  local.addSubnet('fe80::', 10, 'ipv6');
  for (const list of Object.values(os.networkInterfaces()))
    for (const info of list ?? [])
      local.addAddress(info.address.split('%')[0]!, info.family === 'IPv6' ? 'ipv6' : 'ipv4');
  return local;
}

/** True when `address` (an IP; an IPv4-mapped IPv6 address counts as its IPv4 one) leads to this machine. */
export function isThisMachine(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  return localAddresses().check(address, family === 6 ? 'ipv6' : 'ipv4');
}
