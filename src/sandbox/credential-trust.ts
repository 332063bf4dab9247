/**
 * How confined commands come to trust the proxy's authority (./mitm-ca.ts) for the hosts of
 * `sandbox.credentials`: two files in a folder of this process's own (read-only inside the
 * sandbox, which binds the file system read-only; removed when the process exits), named by
 * the variables common TLS stacks read. The bundle holds the roots the command would have used
 * (the environment's SSL_CERT_FILE, else the system's bundle, else Node's) and the authority's
 * certificate; Node's NODE_EXTRA_CA_CERTS file holds the environment's own extra file and it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

/** Where Debian, Fedora, Alpine and others keep the system's roots. */
const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/cert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
];

/** Writes the trust files (once per process) and returns the variables that name them. */
export function trustEnv(certificate: string, env: Record<string, string | undefined>): Record<string, string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-ca-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const bundle = path.join(dir, 'credentials-ca-bundle.pem');
  const extra = path.join(dir, 'credentials-node-extra-ca.pem');
  writeFileSync(bundle, `${baseRoots(env)}\n${certificate}`, { mode: 0o444 });
  writeFileSync(extra, `${readIfAny(env.NODE_EXTRA_CA_CERTS)}\n${certificate}`, { mode: 0o444 });
  return {
    SSL_CERT_FILE: bundle,
    CURL_CA_BUNDLE: bundle,
    REQUESTS_CA_BUNDLE: bundle,
    GIT_SSL_CAINFO: bundle,
    NODE_EXTRA_CA_CERTS: extra,
  };
}

function baseRoots(env: Record<string, string | undefined>): string {
  const own = readIfAny(env.SSL_CERT_FILE);
  if (own) return own;
  for (const file of SYSTEM_BUNDLES) if (existsSync(file)) return readIfAny(file);
  return tls.rootCertificates.join('\n');
}

function readIfAny(file: string | undefined): string {
  if (!file) return '';
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
