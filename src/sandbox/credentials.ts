/**
 * `sandbox.credentials.envVars`, in Claude Code's shape: secrets a sandboxed command may use
 * without holding them. A `deny` entry unsets the variable inside the sandbox. A `mask` entry
 * replaces it (or each span its `extract` expression's first group finds) by a placeholder
 * (`agentpipe_credential_<NAME>_<random>`), and the egress proxy puts the real value in its place
 * in requests to `injectHosts` (default: `network.allowedDomains`), and only there: in the request
 * target and header values (a Basic `Authorization` is decoded first). HTTPS to such a host is
 * terminated by the proxy with a certificate of a per-process authority (./mitm-ca.ts) that
 * confined commands are told to trust, and the proxy connects to the host with the usual
 * verification; plain `http://` only with `allowPlaintextInject`. A response to a request that
 * carried a value has it replaced by the placeholder again (headers and body; the value as it is,
 * URL- or JSON-escaped, and a Basic credential's base64 as the request carried it), so a host that
 * echoes a request does not hand the secret back. Request bodies are not searched.
 *
 * The value comes from the environment agentpipe gives its children, so agentpipe's own keys
 * (withheld from every child) cannot be masked into use. What runs outside the sandbox (sandbox off
 * or unavailable, an approved excluded command) does not get a listed variable at all.
 */
import { randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { childEnv as processChildEnv } from '../process/env.ts';
import type { CredentialEntry, SandboxConfig } from './config.ts';
import type { SandboxPolicy } from './settings.ts';
import { parseHostRules, ruleMatches, type HostRule } from './hosts.ts';

/** A secret span the proxy fills in. */
export interface Credential {
  /** The variable it comes from. */
  name: string;
  /** What confined processes see in its place. */
  placeholder: string;
  /** The real value (the variable's, or a span of it `extract` found); never given to a confined process. */
  value: string;
  /** Where it is filled in: `injectHosts`, else `network.allowedDomains`. */
  hosts: HostRule[];
}

/** What the `envVars` entries make of the environment of confined processes. */
export interface CredentialSet {
  credentials: Credential[];
  /** The listed variables as confined processes get them (a denied one absent, a masked one with placeholders). */
  env: Record<string, string>;
  /** Every listed variable: none of them reaches a confined process as it is, nor one outside the sandbox. */
  names: string[];
}

/** Values shorter than this are not masked: replacing them in answers would mangle unrelated text. */
export const MIN_VALUE_LENGTH = 8;

/** Entry keys of Claude Code's that change what is masked; agentpipe does not do them, so it denies instead. */
const UNSUPPORTED = ['decode', 'maskClaims'] as const;

/**
 * The `envVars` entries applied to `env` (the environment agentpipe would give a child: its own
 * keys already withheld, so none of them can be masked into use). An entry that cannot be applied
 * as asked is denied (the variable unset inside) with one warning, except where Claude Code's
 * `onExtractNoMatch: "warn"` (the default) says to pass the value on.
 */
export function resolveCredentials(
  entries: ReadonlyMap<string, CredentialEntry>,
  env: Record<string, string | undefined>,
  allowedDomains: readonly string[],
  warn: (line: string) => void,
): CredentialSet {
  const set: CredentialSet = { credentials: [], env: {}, names: [...entries.keys()] };
  for (const [name, entry] of entries) {
    const say = (why: string) => warn(`agentpipe: warning: sandbox.credentials.envVars ${name}: ${why}`);
    const value = env[name];
    if (entry.mode === 'deny' || value === undefined) continue;
    const unsupported = UNSUPPORTED.filter((key) => entry[key] !== undefined);
    if (unsupported.length) {
      say(`${unsupported.join(', ')} is not supported by agentpipe; the variable is unset inside (deny)`);
      continue;
    }
    const hosts = parseHostRules(entry.injectHosts ?? allowedDomains, (why) => say(`ignored host ${why}`));
    const spans = secretSpans(value, entry.extract, say, entry.onExtractNoMatch);
    if (spans === 'error')
      throw new Error(`sandbox.credentials.envVars ${name}: extract found nothing (onExtractNoMatch: error)`);
    if (spans === 'pass') {
      set.env[name] = value;
      continue;
    }
    if (spans === 'deny') continue;
    if (spans.some((span) => span.length < MIN_VALUE_LENGTH || /[\x00-\x1f\x7f]/.test(span))) {
      say(`a secret shorter than ${MIN_VALUE_LENGTH} characters or with a control character; unset inside`);
      continue;
    }
    let masked = value;
    for (const span of [...new Set(spans)]) {
      const placeholder = `agentpipe_credential_${name}_${randomBytes(16).toString('hex')}`;
      masked = masked.split(span).join(placeholder);
      set.credentials.push({ name, placeholder, value: span, hosts });
    }
    set.env[name] = masked;
  }
  return set;
}

/** The secret spans of `value`: the whole, or each first group of `extract`; `pass` or `deny` when it finds none. */
function secretSpans(
  value: string,
  extract: string | undefined,
  say: (why: string) => void,
  onNoMatch: 'deny' | 'error' | 'warn' = 'warn',
): string[] | 'pass' | 'deny' | 'error' {
  if (extract === undefined) return value ? [value] : 'deny';
  let pattern: RegExp;
  try {
    pattern = new RegExp(extract, 'g');
  } catch (error) {
    say(`extract is not a valid regular expression (${String(error)}); unset inside`);
    return 'deny';
  }
  const spans = [...value.matchAll(pattern)].map((match) => match[1]).filter((span): span is string => !!span);
  if (spans.length) return spans;
  if (onNoMatch === 'error') return 'error';
  if (onNoMatch === 'warn') {
    say('extract found nothing; passed on as it is (onExtractNoMatch: warn)');
    return 'pass';
  }
  say('extract found nothing; unset inside');
  return 'deny';
}

/** The credentials whose value may go to `host` (canonical) on `port`. */
export function credentialsFor(credentials: readonly Credential[], host: string, port: number): Credential[] {
  return credentials.filter((credential) => credential.hosts.some((rule) => ruleMatches(rule, host, port)));
}

/** `text` with each placeholder of `credentials` replaced by its value. */
export function fillIn(text: string, credentials: readonly Credential[]): string {
  let out = text;
  for (const credential of credentials) out = out.split(credential.placeholder).join(credential.value);
  return out;
}

/** A string to replace by another in a response: a value (or a form of it) by what the command sent. */
export interface Swap {
  from: string;
  to: string;
}

/**
 * Raw header pairs with the placeholders filled in (a Basic credential decoded, filled and encoded
 * again); `changed` tells whether any value went in, `swaps` the encoded forms to take back out of
 * the response (a Basic credential's base64).
 */
export function fillInHeaders(raw: readonly string[], credentials: readonly Credential[]) {
  const headers: string[] = [];
  const swaps: Swap[] = [];
  let changed = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    let value = raw[i + 1]!;
    const basic = /^(basic\s+)([A-Za-z0-9+/=]+)$/i.exec(value);
    if (basic && /^(proxy-)?authorization$/i.test(name)) {
      const decoded = Buffer.from(basic[2]!, 'base64').toString('utf8');
      const filled = fillIn(decoded, credentials);
      if (filled !== decoded) {
        const encoded = Buffer.from(filled, 'utf8').toString('base64');
        swaps.push({ from: encoded, to: basic[2]! });
        value = `${basic[1]!}${encoded}`;
      }
    } else {
      value = fillIn(value, credentials);
    }
    if (value !== raw[i + 1]) changed = true;
    headers.push(name, value);
  }
  return { headers, changed, swaps };
}

/**
 * What to take out of a response to a request that carried values: each value, and its URL- and
 * JSON-escaped forms where they differ (as the usual encoders write them), by its placeholder; then
 * `extra` (encoded forms the request carried). Longest first, so a form that contains another is replaced whole.
 */
export function swapsFor(credentials: readonly Credential[], extra: readonly Swap[] = []): Swap[] {
  const swaps: Swap[] = [...extra];
  for (const { value, placeholder } of credentials) {
    const uri = encodeURIComponent(value);
    const json = JSON.stringify(value).slice(1, -1);
    // Escapes as other encoders write them: lowercase hex (`%2f`), PHP's json_encode (`\/`), Go's (`\u003c`).
    const forms = new Set([
      value,
      uri,
      uri.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
      json,
      json.replaceAll('/', '\\/'),
      json.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`),
    ]);
    for (const form of forms) swaps.push({ from: form, to: placeholder });
  }
  return swaps.sort((a, b) => b.from.length - a.from.length);
}

/** Raw header pairs with each swap made in the names and the values. */
export function scrubHeaders(raw: readonly string[], swaps: readonly Swap[]): string[] {
  // Names too: a value made of token characters is a valid header name a host could echo.
  return raw.map((text) => scrubText(text, swaps));
}

/** `text` with every value replaced by its placeholder (a status line's reason phrase). */
export function scrubText(text: string, swaps: readonly Swap[]): string {
  let out = text;
  for (const swap of swaps) out = out.split(swap.from).join(swap.to);
  return out;
}

/** The length of the longest end of `data` that is the start (not the whole) of one of the strings. */
function unfinished(data: Buffer, pairs: ReadonlyArray<{ from: Buffer }>): number {
  let keep = 0;
  for (const { from } of pairs)
    for (let length = Math.min(from.length - 1, data.length); length > keep; length--)
      if (data.subarray(data.length - length).equals(from.subarray(0, length))) {
        keep = length;
        break;
      }
  return keep;
}

/**
 * A stream that makes each swap, also across chunk boundaries: it holds back only the bytes that
 * could still be the start of one. At one position the first swap listed that matches wins.
 */
export function scrubber(swaps: readonly Swap[]): Transform {
  const pairs = swaps.map((swap) => ({ from: Buffer.from(swap.from), to: Buffer.from(swap.to) }));
  let pending = Buffer.alloc(0);
  const drain = (final: boolean): Buffer => {
    const data = pending;
    // Only an end of `data` that begins one of the strings may still become a match: the rest goes on now, so a
    // tunnel's small messages are not held. Any match starting before `limit` lies wholly in `data`.
    const limit = final ? data.length : data.length - unfinished(data, pairs);
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      let next: { index: number; pair: (typeof pairs)[number] } | undefined;
      for (const pair of pairs) {
        const index = data.indexOf(pair.from, at);
        if (index !== -1 && index < limit && (!next || index < next.index)) next = { index, pair };
      }
      if (!next) break;
      parts.push(data.subarray(at, next.index), next.pair.to);
      at = next.index + next.pair.from.length;
    }
    const end = Math.max(at, limit);
    parts.push(data.subarray(at, end));
    pending = data.subarray(end);
    return Buffer.concat(parts);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      pending = Buffer.concat([pending, chunk]);
      const out = drain(false);
      done(null, out.length ? out : undefined);
    },
    flush(done: TransformCallback) {
      const out = drain(true);
      done(null, out.length ? out : undefined);
    },
  });
}

const sessionCredentials = new WeakMap<SandboxConfig, CredentialSet>();

/** The session's `sandbox.credentials.envVars` applied, with their placeholders (made once per session). */
export function credentialsOf(config: SandboxConfig, policy: SandboxPolicy): CredentialSet {
  let set = sessionCredentials.get(config);
  if (!set) {
    set = policy.credentialVars.size
      ? resolveCredentials(
          policy.credentialVars,
          processChildEnv(config.env ?? process.env),
          policy.allowedDomains,
          config.warn,
        )
      : { credentials: [], env: {}, names: [] };
    sessionCredentials.set(config, set);
  }
  return set;
}

/** `env` without the variables `sandbox.credentials.envVars` lists (none reaches what agentpipe starts as it is). */
export function withheld(env: Record<string, string>, policy: SandboxPolicy): Record<string, string> {
  if (!policy.credentialVars.size) return env;
  const out = { ...env };
  for (const name of policy.credentialVars.keys()) delete out[name];
  return out;
}
