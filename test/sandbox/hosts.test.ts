/**
 * Host matching as Claude Code's sandbox does it (deniedDomains first, exact names and `*.`
 * wildcards, punycode, IP literals only when listed as such) with agentpipe's optional port, and
 * which addresses count as this machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideHost, isThisMachine, parseHostRules, type HostRules } from '../../src/sandbox/hosts.ts';

function rules(allow: string[], deny: string[] = []): HostRules {
  const invalid: string[] = [];
  const parsed = {
    allow: parseHostRules(allow, (why) => invalid.push(why)),
    deny: parseHostRules(deny, (why) => invalid.push(why)),
  };
  assert.deepEqual(invalid, []);
  return parsed;
}

const allowed = (r: HostRules, host: string, port = 443) => decideHost(r, host, port).allowed;

test('an exact name matches itself only, in any case and with a trailing dot', () => {
  const r = rules(['github.com']);
  assert.equal(allowed(r, 'github.com'), true);
  assert.equal(allowed(r, 'GitHub.COM.'), true);
  assert.equal(allowed(r, 'api.github.com'), false);
  assert.equal(allowed(r, 'github.com.evil.example'), false);
  assert.equal(allowed(r, 'evilgithub.com'), false);
});

test('*.domain matches every subdomain but not the domain itself', () => {
  const r = rules(['*.npmjs.org']);
  assert.equal(allowed(r, 'registry.npmjs.org'), true);
  assert.equal(allowed(r, 'a.b.npmjs.org'), true);
  assert.equal(allowed(r, 'npmjs.org'), false);
  assert.equal(allowed(r, 'evilnpmjs.org'), false);
});

test('names compare in their punycode form, whichever form each side is written in', () => {
  const r = rules(['bücher.example', '*.xn--mnchen-3ya.example']);
  assert.equal(allowed(r, 'xn--bcher-kva.example'), true);
  assert.equal(allowed(r, 'BÜCHER.example'), true);
  assert.equal(allowed(r, 'shop.münchen.example'), true);
  assert.equal(allowed(r, 'bucher.example'), false);
});

test('an IP address passes only when listed as such; a name never lets an address through', () => {
  const r = rules(['example.com', '93.184.215.14', '[2001:db8::1]']);
  assert.equal(allowed(r, '93.184.215.14'), true);
  assert.equal(allowed(r, '93.184.215.15'), false);
  assert.equal(allowed(r, '2001:db8:0:0::1'), true, 'IPv6 in canonical form');
  assert.equal(allowed(r, '[2001:DB8::1]'), true);
  const byName = rules(['*.example.com', 'localhost']);
  assert.equal(allowed(byName, '127.0.0.1'), false);
  // The forms of 127.0.0.1 a URL parser accepts are one address.
  const loopback = rules(['127.0.0.1']);
  for (const form of ['127.0.0.1', '0x7f.1', '2130706433', '127.1']) assert.equal(allowed(loopback, form), true, form);
  assert.equal(allowed(loopback, '::ffff:127.0.0.1'), false, 'the mapped form is another address');
});

test('a port narrows an entry; deniedDomains wins over allowedDomains', () => {
  const r = rules(
    ['127.0.0.1:8080', 'api.example.com:443', '*.example.com'],
    ['secret.example.com', 'x.example.com:22'],
  );
  assert.equal(allowed(r, '127.0.0.1', 8080), true);
  assert.equal(allowed(r, '127.0.0.1', 8081), false);
  assert.equal(allowed(r, 'api.example.com', 443), true);
  assert.equal(allowed(r, 'secret.example.com', 443), false);
  assert.equal(allowed(r, 'x.example.com', 443), true);
  assert.equal(allowed(r, 'x.example.com', 22), false);
  const denied = decideHost(r, 'secret.example.com', 443);
  assert.equal(denied.allowed, false);
  assert.match(!denied.allowed ? denied.reason : '', /deniedDomains \(secret\.example\.com\)/);
  const other = decideHost(r, 'evil.test', 443);
  assert.match(!other.allowed ? other.reason : '', /evil\.test:443 is not in sandbox\.network\.allowedDomains/);
});

test('entries that are not hosts are reported and left out', () => {
  const invalid: string[] = [];
  const parsed = parseHostRules(['*', 'a b', '*.1.2.3.4', 'x.com:70000', 'ok.example', '*.*.example'], (why) =>
    invalid.push(why),
  );
  assert.deepEqual(
    parsed.map((r) => r.text),
    ['ok.example'],
  );
  assert.equal(invalid.length, 5, invalid.join('\n'));
});

test('this machine: loopback, unspecified, link-local (cloud metadata), mapped forms, its interfaces', () => {
  for (const address of [
    '127.0.0.1',
    '127.8.9.10',
    '0.0.0.0',
    '::1',
    '::',
    '169.254.169.254',
    'fe80::1',
    '::ffff:127.0.0.1',
  ])
    assert.equal(isThisMachine(address), true, address);
  for (const address of ['93.184.215.14', '2001:db8::1', '10.1.2.3'])
    assert.equal(isThisMachine(address), false, address);
});
