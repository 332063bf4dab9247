/**
 * The certificate authority the egress proxy terminates HTTPS with for hosts that have a
 * `sandbox.credentials` entry (./credentials.ts). One per agentpipe process, made on first use:
 * an RSA key that never leaves this process's memory, a CA certificate valid for 30 days whose
 * only use is signing, and a certificate per host signed by it (the hosts' certificates share one
 * key). Confined commands trust it through the files ./network.ts names in their environment;
 * nothing else does. node-forge builds the certificates (Node has no API for that); the keys and
 * signatures are Node's own crypto, which is fast.
 */
import { generateKeyPair, randomBytes, sign, type KeyObject } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import type forgeType from 'node-forge';

type Forge = typeof forgeType;

// node-forge has it (certificateToAsn1 uses it); its typings do not list it.
declare module 'node-forge' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace pki {
    function getTBSCertificate(certificate: Certificate): asn1.Asn1;
  }
}

const DAY = 24 * 60 * 60 * 1000;
const VALID_FOR = 30 * DAY;

/** A certificate authority for the proxy. */
export interface CertificateAuthority {
  /** Its certificate (PEM), for confined commands to trust. */
  certificate: string;
  /** A key and certificate (PEM) for `host` (a name or an address), signed by it. */
  issue(host: string): { key: string; cert: string };
  /** A TLS server context with `issue(host)`'s certificate, made once per host. */
  contextFor(host: string): Promise<tls.SecureContext>;
}

interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A new RSA key pair, made off the main thread. */
function rsa(): Promise<KeyPair> {
  return new Promise((resolve, reject) =>
    generateKeyPair('rsa', { modulusLength: 2048 }, (error, publicKey, privateKey) =>
      error ? reject(error) : resolve({ publicKey, privateKey }),
    ),
  );
}

/** A new authority (~50–200 ms: two RSA keys). */
export async function createAuthority(now = new Date()): Promise<CertificateAuthority> {
  const forge = (await import('node-forge')).default;
  const [caKeys, hostKeys] = await Promise.all([rsa(), rsa()]);
  const name = [
    { name: 'commonName', value: 'agentpipe sandbox credentials' },
    { name: 'organizationName', value: 'agentpipe (this process only)' },
  ];
  const ca = newCertificate(forge, caKeys.publicKey, now);
  ca.setSubject(name);
  ca.setIssuer(name);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signCertificate(forge, ca, caKeys.privateKey);
  const caKeyId = ca.generateSubjectKeyIdentifier().getBytes();
  const hostKey = hostKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const contexts = new Map<string, tls.SecureContext>();
  const authority: CertificateAuthority = {
    certificate: forge.pki.certificateToPem(ca),
    issue(host) {
      const leaf = newCertificate(forge, hostKeys.publicKey, now);
      leaf.setSubject([{ name: 'commonName', value: host.slice(0, 64) }]);
      leaf.setIssuer(name);
      leaf.setExtensions([
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [net.isIP(host) ? { type: 7, ip: host } : { type: 2, value: host }] },
        { name: 'authorityKeyIdentifier', keyIdentifier: caKeyId },
      ]);
      signCertificate(forge, leaf, caKeys.privateKey);
      return { key: hostKey, cert: forge.pki.certificateToPem(leaf) };
    },
    contextFor(host) {
      let context = contexts.get(host);
      if (!context) {
        context = tls.createSecureContext(authority.issue(host));
        contexts.set(host, context);
      }
      return Promise.resolve(context);
    },
  };
  return authority;
}

function newCertificate(forge: Forge, publicKey: KeyObject, now: Date): forgeType.pki.Certificate {
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  // A positive serial of 128 random bits (the first byte's high bit clear).
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  certificate.serialNumber = serial.toString('hex');
  certificate.validity.notBefore = new Date(now.getTime() - DAY);
  certificate.validity.notAfter = new Date(now.getTime() + VALID_FOR);
  return certificate;
}

/** Signs with Node's crypto (forge's own RSA is pure JavaScript, ~40× slower). */
function signCertificate(forge: Forge, certificate: forgeType.pki.Certificate, key: KeyObject): void {
  certificate.signatureOid = forge.pki.oids.sha256WithRSAEncryption!;
  certificate.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption!;
  const tbs = forge.pki.getTBSCertificate(certificate);
  const der = Buffer.from(forge.asn1.toDer(tbs).getBytes(), 'binary');
  certificate.tbsCertificate = tbs;
  certificate.signature = sign('sha256', der, key).toString('binary');
}
