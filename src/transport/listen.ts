/**
 * Starts a server listening, the one way every server of agentpipe does it (serve, view, view --live, the cluster
 * page). What the user can mend (a port in use, a port that needs privileges, an address that is not this
 * machine's) is a ListenError whose message is one line with the way out; anything else is thrown as it came.
 */
import { AgentpipeError } from '../process/errors.ts';
import type { Server } from 'node:net';

/** A server could not listen for a reason the user can mend; the message says how. */
export class ListenError extends AgentpipeError {
  static override readonly errorName: string = 'ListenError';
  readonly code: string;
  constructor(message: string, options: { code: string; cause: unknown }) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
}

/** The one line for a listen failure the user can mend, or undefined. */
function explain(code: string | undefined, port: number, host: string): string | undefined {
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} is in use: pick another --port, or --port 0 for any free one`;
    case 'EACCES':
      return `port ${port} needs privileges here: pick a --port above 1023, or --port 0 for any free one`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine: give --host 127.0.0.1 (or 0.0.0.0 for every interface)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `--host ${host}: no such host name here: give an address such as 127.0.0.1`;
    default:
      return undefined;
  }
}

/** Listens on `host`:`port` (0: any free port); resolves with the port bound. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const line = explain(error.code, port, host);
      reject(line ? new ListenError(line, { code: error.code!, cause: error }) : error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
