/**
 * The sandbox's network through the real CLI: a workspace command reaches an allowed host (on this
 * machine's loopback, named with its port, so forwarded into the namespace) and nothing else: a
 * host not listed, a denied one and another loopback port are refused by the egress proxy with a
 * 403 that says why, the refusals are reported on stderr and after the command's output, and the
 * host's loopback is not reachable directly. A command hook has the same network; an MCP stdio
 * server with `network: true` reaches its own allowed host too; a read-only line has none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { once } from 'node:events';
import { ofType, runScripted, toolResults } from '../helpers/agent-run.ts';
import { processesWith } from '../helpers/processes.ts';
import { tempDir } from '../helpers/workspace.ts';

/** A loopback server that greets each connection with `name` and closes it. */
async function greeter(name: string): Promise<{ port: number; close(): void }> {
  const server = net.createServer((socket) => socket.end(`${name}-reached\n`));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** Bash that asks the proxy in $HTTP_PROXY for a CONNECT to `target` and prints the first line of the answer. */
const connect = (target: string) =>
  `exec 3<>/dev/tcp/127.0.0.1/\${HTTP_PROXY##*:} && ` +
  `printf 'CONNECT ${target} HTTP/1.1\\r\\nHost: ${target}\\r\\n\\r\\n' >&3 && timeout 10 cat <&3 | tr -d '\\r'`;
/** Bash that connects to a loopback port directly and prints what it got, or "refused". */
const direct = (port: number) =>
  `(exec 3<>/dev/tcp/127.0.0.1/${port} && timeout 10 cat <&3) 2>/dev/null || echo "${port} refused"`;

const bash = (command: string) => ({ tool_calls: [{ name: 'Bash', input: { command } }] });

test('workspace commands, hooks and MCP servers reach allowed hosts only; refusals are a 403 with the reason, reported', async () => {
  const allowed = await greeter('allowed');
  const other = await greeter('other');
  const mcpOnly = await greeter('mcp');
  const dir = tempDir();
  try {
    const settings = {
      sandbox: {
        network: {
          allowedDomains: [`127.0.0.1:${allowed.port}`, '*.agentpipe.test'],
          deniedDomains: ['denied.agentpipe.test'],
        },
      },
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: `{ ${direct(allowed.port)}; } > hook.txt` }] }],
      },
    };
    const mcpScript = `{ ${direct(mcpOnly.port)}; ${direct(other.port)}; } > mcp.txt; exit 0`;
    const mcp = {
      mcpServers: {
        probe: {
          command: 'bash',
          args: ['-c', mcpScript],
          sandbox: { network: true, allowedDomains: [`127.0.0.1:${mcpOnly.port}`] },
        },
      },
    };
    const run = await runScripted(
      dir,
      [
        bash(direct(allowed.port)),
        bash(connect(`127.0.0.1:${allowed.port}`)),
        bash(connect(`127.0.0.1:${other.port}`)),
        bash(connect('example.com:443')),
        bash(connect('denied.agentpipe.test:443')),
        bash(direct(other.port)),
        bash(`cat < /dev/null; ${direct(allowed.port)}`),
        { text: 'done' },
      ],
      [
        '--permission-mode',
        'bypassPermissions',
        '--settings',
        JSON.stringify(settings),
        '--mcp-config',
        JSON.stringify(mcp),
      ],
      { timeoutMs: 90_000 },
    );
    assert.equal(run.code, 0, run.stderr);
    const out = [...toolResults(run.lines).values()].map((r) => String(r.content));
    assert.equal(out.length, 7);
    assert.match(out[0]!, /^allowed-reached$/, 'an allowed loopback host is forwarded at its port');
    assert.match(out[1]!, /^HTTP\/1\.1 200 Connection Established\n\nallowed-reached$/);
    assert.match(out[2]!, /^HTTP\/1\.1 403 Forbidden\n/);
    assert.match(out[2]!, /X-Proxy-Error: blocked-by-allowlist/);
    assert.match(out[2]!, /the address 127\.0\.0\.1:\d+ is not in sandbox\.network\.allowedDomains/);
    assert.match(out[2]!, /\[sandbox\] network access refused: the address 127\.0\.0\.1:\d+ is not/);
    assert.match(out[3]!, /403 Forbidden[\s\S]*example\.com:443 is not in sandbox\.network\.allowedDomains/);
    assert.match(out[4]!, /403 Forbidden[\s\S]*denied\.agentpipe\.test:443 is in sandbox\.network\.deniedDomains/);
    assert.match(out[5]!, new RegExp(`^${other.port} refused$`), "the host's loopback is not there");
    assert.match(out[6]!, /allowed-reached/);
    const refusals = run.stderr.split('\n').filter((l) => l.includes("refused a sandboxed command's connection"));
    assert.equal(refusals.length, 3, run.stderr);
    assert.equal(
      readFileSync(path.join(dir, 'hook.txt'), 'utf8'),
      'allowed-reached\n',
      'the hook has the same network',
    );
    assert.equal(
      readFileSync(path.join(dir, 'mcp.txt'), 'utf8'),
      `mcp-reached\n${other.port} refused\n`,
      "the MCP server reaches its own host, not the host's loopback",
    );
    assert.equal(ofType(run.lines, 'result')[0]!.subtype, 'success');
    // The namespace's holder (its argv names the forwarded port) ended with the session: SIGKILLed on
    // exit, so at most a few `ps` listings may still catch it before the kernel has reaped it.
    const holder = `{"forwards":[${allowed.port}`;
    let left = processesWith(holder);
    for (let tries = 0; left.length && tries < 50; tries++) left = processesWith(holder);
    assert.deepEqual(left, [], 'the network namespace holder stops with the session');
  } finally {
    allowed.close();
    other.close();
    mcpOnly.close();
  }
});

test('a line the check lets through as read-only has no network, whatever allowedDomains says', async () => {
  const allowed = await greeter('allowed');
  const dir = tempDir();
  try {
    const settings = { sandbox: { network: { allowedDomains: [`127.0.0.1:${allowed.port}`] } } };
    // `env` is read-only: it runs without asking, in the read-only sandbox, which has no proxy either.
    const run = await runScripted(dir, [bash('env'), { text: 'done' }], ['--settings', JSON.stringify(settings)], {
      timeoutMs: 60_000,
    });
    assert.equal(run.code, 0, run.stderr);
    const [result] = [...toolResults(run.lines).values()];
    assert.match(String(result!.content), /^PATH=/m, 'it ran');
    assert.doesNotMatch(String(result!.content), /_PROXY=http:\/\/127\.0\.0\.1:|NODE_USE_ENV_PROXY/);
  } finally {
    allowed.close();
  }
});
