/**
 * A network namespace for sandboxed commands that may reach some hosts, and the bridge that gets
 * their connections out of it without weakening the seccomp filter. A small holder process (Node,
 * our own code, in a bubblewrap user and network namespace of its own) binds the proxy ports on
 * the namespace's loopback, and forwarded ports where an allowed host on this machine's loopback
 * is named with its port, and hands each listening socket to agentpipe over Node's IPC channel
 * (SCM_RIGHTS on a socket pair, which the filter allows). agentpipe then accepts the namespace's
 * connections itself: no unix socket is bound into the sandbox, no port is opened on the host,
 * and nothing inside the namespace runs unfiltered. Commands join the namespace with `nsenter`
 * (user namespace first, then its network namespace) just before bubblewrap builds the rest of
 * their sandbox; nothing else of the host's network is there (only `lo`).
 *
 * The alternative, Claude Code's on Linux (a unix socket bridged into the sandbox and socat
 * inside), needs socat, a process inside that may create unix sockets, and a filter applied
 * after it starts; this needs neither.
 */
import { statSync } from 'node:fs';
import type net from 'node:net';
import { startHelper, type Helper } from '../process/helper.ts';

/** What the namespace's connections are handed to. */
export interface NamespaceHandlers {
  http(socket: net.Socket): void;
  socks(socket: net.Socket): void;
  /** A connection to forwarded `port`. */
  forward(port: number, socket: net.Socket): void;
  /** The holder ended (the namespace is gone); not called after `close()`. */
  ended(why: string): void;
}

/** A running namespace. */
export interface NetworkNamespace {
  /** The proxies' ports on the namespace's loopback. */
  readonly httpPort: number;
  readonly socksPort: number;
  /** The argv prefix that starts a program inside the namespace; undefined once it is gone. */
  join(): string[] | undefined;
  close(): void;
}

/**
 * The holder: binds the forwarded ports (127.0.0.1 and ::1, the latter where the namespace has
 * IPv6), then the two proxy ports (port 0: free ones), sends each listener to agentpipe and closes
 * its own copy; stays until agentpipe disconnects or stops it.
 */
const HOLDER = `
const net = require('node:net');
const { forwards } = JSON.parse(process.argv[1]);
const listen = (port, host) => new Promise((ok, fail) => {
  const server = net.createServer();
  server.once('error', fail);
  server.listen({ port, host, exclusive: true }, () => ok(server));
});
const send = (message, server) => new Promise((ok, fail) =>
  process.send(message, server, (error) => (error ? fail(error) : (server.close(), ok()))));
(async () => {
  for (const port of forwards) {
    await send({ kind: 'forward', port }, await listen(port, '127.0.0.1'));
    const v6 = await listen(port, '::1').catch(() => undefined); // no IPv6 loopback here: the IPv4 forward is enough
    if (v6) await send({ kind: 'forward', port }, v6);
  }
  for (const kind of ['http', 'socks']) {
    const server = await listen(0, '127.0.0.1');
    await send({ kind, port: server.address().port }, server);
  }
  process.send({ kind: 'ready', pid: process.pid });
})().catch((error) => { process.stderr.write(String(error && error.message || error)); process.exit(1); });
process.on('disconnect', () => process.exit(0));
`;

/** The holder's messages. */
type HolderMessage =
  { kind: 'forward'; port: number } | { kind: 'http' | 'socks'; port: number } | { kind: 'ready'; pid: number };

/** Starts a namespace (bubblewrap for the namespaces, Node for the holder); rejects when it cannot. */
export function startNamespace(o: {
  bwrap: string;
  nsenter: string;
  forwards: number[];
  handlers: NamespaceHandlers;
  timeoutMs?: number;
}): Promise<NetworkNamespace> {
  return new Promise((resolve, reject) => {
    const ports = { http: 0, socks: 0 };
    const servers: net.Server[] = [];
    let state: 'starting' | 'ready' | 'ended' = 'starting';
    let identity: { pid: number; inode: number } | undefined;
    const fail = (why: string) => {
      const was = state;
      state = 'ended';
      clearTimeout(timer);
      for (const server of servers) server.close();
      helper.stop();
      if (was === 'starting') reject(new Error(`the sandbox's network namespace could not start: ${why}`));
      else if (was === 'ready') o.handlers.ended(why);
    };
    const helper: Helper = startHelper({
      command: [
        o.bwrap,
        ...['--unshare-user', '--unshare-net', '--die-with-parent', '--ro-bind', '/', '/'],
        '--',
        process.execPath,
        '-e',
        HOLDER,
        JSON.stringify({ forwards: o.forwards }),
      ],
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      onMessage: (raw, handle) => {
        const message = raw as HolderMessage;
        if (state !== 'starting') return;
        if (message.kind === 'ready') {
          identity = nsIdentity(message.pid);
          if (!identity) return fail('its namespaces are not reachable under /proc');
          state = 'ready';
          clearTimeout(timer);
          helper.settled();
          return resolve(namespace);
        }
        const server = handle as net.Server;
        server.unref();
        servers.push(server);
        const accept =
          message.kind === 'forward'
            ? (socket: net.Socket) => o.handlers.forward(message.port, socket)
            : (socket: net.Socket) => o.handlers[message.kind](socket);
        server.on('connection', accept);
        if (message.kind !== 'forward') ports[message.kind] = message.port;
      },
      onExit: fail,
    });
    const timer = setTimeout(() => fail('no answer in time'), o.timeoutMs ?? 15_000);
    timer.unref();
    const namespace: NetworkNamespace = {
      get httpPort() {
        return ports.http;
      },
      get socksPort() {
        return ports.socks;
      },
      join() {
        // The holder's namespaces, as long as it is the same process (a reused pid would not match).
        if (state !== 'ready' || !identity || nsIdentity(identity.pid)?.inode !== identity.inode) return undefined;
        const ns = `/proc/${identity.pid}/ns`;
        return [o.nsenter, `--user=${ns}/user`, `--net=${ns}/net`, '--preserve-credentials', '--'];
      },
      close() {
        if (state === 'ended') return;
        state = 'ended';
        for (const server of servers) server.close();
        helper.stop();
      },
    };
  });
}

/** The holder's pid and its network namespace's inode; undefined when /proc does not show them. */
function nsIdentity(pid: number): { pid: number; inode: number } | undefined {
  try {
    return { pid, inode: statSync(`/proc/${pid}/ns/net`).ino };
  } catch {
    return undefined;
  }
}
