/** The access policy of the servers, request by request (the browser test drives it end to end). */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { test } from 'node:test';
import { checkAccess, type AccessPolicy } from '../../src/transport/access.ts';

const req = (headers: Record<string, string>, url = '/') => ({ headers, url }) as unknown as http.IncomingMessage;
const loopback: AccessPolicy = { host: '127.0.0.1', port: 8123, token: 'tok' };

const ROWS: Array<[string, AccessPolicy, Record<string, string>, string, number | undefined]> = [
  ['CLI client with the token', loopback, { host: '127.0.0.1:8123', authorization: 'Bearer tok' }, '/', undefined],
  ['token in the query', loopback, { host: 'localhost:8123' }, '/?token=tok', undefined],
  [
    'token as a subprotocol',
    loopback,
    { host: '[::1]:8123', 'sec-websocket-protocol': 'agentpipe.token.tok' },
    '/',
    undefined,
  ],
  ['no token', loopback, { host: '127.0.0.1:8123' }, '/', 401],
  ['wrong token', loopback, { host: '127.0.0.1:8123', authorization: 'Bearer nope' }, '/', 401],
  ['the page itself', loopback, { host: '127.0.0.1:8123', origin: 'http://127.0.0.1:8123' }, '/?token=tok', undefined],
  [
    'another origin with the token',
    loopback,
    { host: '127.0.0.1:8123', origin: 'http://127.0.0.1:9999' },
    '/?token=tok',
    403,
  ],
  ['another site', loopback, { host: '127.0.0.1:8123', origin: 'https://evil.example' }, '/?token=tok', 403],
  ['origin null', loopback, { host: '127.0.0.1:8123', origin: 'null' }, '/?token=tok', 403],
  ['DNS rebinding', loopback, { host: 'evil.example:8123', origin: 'http://evil.example:8123' }, '/?token=tok', 421],
  ['rebinding without Origin', loopback, { host: 'evil.example:8123' }, '/?token=tok', 421],
  ['another port in Host', loopback, { host: '127.0.0.1:1', authorization: 'Bearer tok' }, '/', 421],
  ['no Host', loopback, { authorization: 'Bearer tok' }, '/', 421],
  [
    'allowed origin',
    { ...loopback, allowOrigins: ['https://app.example.com'] },
    { host: '127.0.0.1:8123', origin: 'https://app.example.com' },
    '/?token=tok',
    undefined,
  ],
  [
    'allowed origin, other scheme',
    { ...loopback, allowOrigins: ['https://app.example.com'] },
    { host: '127.0.0.1:8123', origin: 'http://app.example.com' },
    '/?token=tok',
    403,
  ],
  ['no token configured (--no-token)', { host: '127.0.0.1', port: 8123 }, { host: '127.0.0.1:8123' }, '/', undefined],
  [
    '--no-token still checks Origin',
    { host: '127.0.0.1', port: 8123 },
    { host: '127.0.0.1:8123', origin: 'https://evil.example' },
    '/',
    403,
  ],
  [
    'all interfaces: an IP literal',
    { host: '0.0.0.0', port: 8123, token: 'tok' },
    { host: '10.1.2.3:8123', authorization: 'Bearer tok' },
    '/',
    undefined,
  ],
  [
    'all interfaces: a DNS name',
    { host: '0.0.0.0', port: 8123, token: 'tok' },
    { host: 'evil.example:8123', authorization: 'Bearer tok' },
    '/',
    421,
  ],
  [
    'bound to a name',
    { host: 'agents.internal', port: 8123, token: 'tok' },
    { host: 'agents.internal:8123', authorization: 'Bearer tok' },
    '/',
    undefined,
  ],
];

test('Host, Origin and token decide every request', () => {
  for (const [label, policy, headers, url, status] of ROWS) {
    assert.equal(checkAccess(req(headers, url), policy, true)?.status, status, label);
  }
});
