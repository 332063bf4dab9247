/**
 * `agentpipe app-server [options]`: Codex's app-server protocol (what the Codex VS Code extension,
 * the desktop app and the Codex Python SDK speak) on `--listen stdio://` (the default) or
 * `--listen ws://HOST:PORT` (a token as for `serve`: `--token`, AGENTPIPE_SERVE_TOKEN, or a fresh
 * one printed in the URL; `--no-token` on loopback only; browser origins refused unless
 * `--allow-origin`). The model and session flags every entry point shares set what threads start
 * from; `-c key=value` takes codex's config keys (src/codex/config-options.ts).
 */
import { errorMessage } from '../process/errors.ts';
import { Command } from 'commander';
import { addSessionOptions, type CliFlags } from './flags.ts';
import { UsageError, reportUsageError, sessionOptionsFromFlags } from './options.ts';
import { collect } from './serve-command.ts';
import { serverToken } from './server-token.ts';
import { untilSignal } from './signals.ts';
import { maxLineFromEnv } from '../messages/ndjson.ts';
import { envNumber } from '../process/env-number.ts';

interface AppServerFlags extends CliFlags {
  listen: string;
  token?: string | boolean;
  allowOrigin?: string[];
  config?: string[];
}

export function buildAppServerProgram(): Command {
  const program = new Command('agentpipe app-server').description(
    "Serve Codex's app-server protocol (JSON-RPC: threads, turns, approvals) on stdio or a WebSocket. " +
      'Threads are agentpipe sessions, saved as transcripts: thread/list and thread/resume find them again.',
  );
  return addSessionOptions(program)
    .option(
      '--listen <url>',
      'stdio:// (default) or ws://HOST:PORT (port 0: any free port, printed on stderr)',
      'stdio://',
    )
    .option('--stdio', 'the same as --listen stdio://')
    .option(
      '-c, --config <key=value>',
      'codex config override (model, openai_base_url, sandbox_mode, …); repeatable',
      collect,
    )
    .option(
      '--token <token>',
      'WebSocket: required from clients as "Authorization: Bearer <token>" or ?token= (or AGENTPIPE_SERVE_TOKEN); ' +
        'default: a fresh token, printed in the URL',
    )
    .option('--no-token', 'WebSocket without a token (loopback only): any local process could run tools here')
    .option('--allow-origin <origin>', 'WebSocket: a browser origin that may connect; repeatable', collect)
    .configureOutput({
      outputError: (text, write) => write(`agentpipe: ${text.trim()} (see agentpipe app-server --help)\n`),
    });
}

/** `ws://HOST:PORT` → host and port; `stdio://` → undefined. */
function listenAddress(url: string): { host: string; port: number } | undefined {
  if (url === 'stdio://' || url === 'stdio') return undefined;
  const match = /^ws:\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/.exec(url);
  if (!match)
    throw new UsageError(`--listen ${url}: expected stdio:// or ws://HOST:PORT (unix sockets are not served)`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

/** Parses `argv` (after `app-server`), then serves until stdin closes (stdio) or a signal (WebSocket). */
export async function runAppServerCommand(argv: string[], log: (line: string) => void): Promise<void> {
  const program = buildAppServerProgram();
  program.parse(argv, { from: 'user' });
  const flags = program.opts<AppServerFlags & { stdio?: boolean }>();
  try {
    const address = flags.stdio ? undefined : listenAddress(flags.listen);
    const { parseOverride } = await import('../codex/config-overrides.ts');
    let config;
    try {
      config = (flags.config ?? []).map(parseOverride);
    } catch (error) {
      throw new UsageError(`-c: ${errorMessage(error)}`);
    }
    const base = await sessionOptionsFromFlags(flags);
    const { checkSessionOptions } = await import('../session/open.ts');
    await checkSessionOptions(base, log).catch((error: Error) => {
      throw new UsageError(error.message);
    });
    const { AppServer } = await import('../codex/app-server/server.ts');
    const server = new AppServer({
      base: { ...base, stderr: log },
      config,
      env: process.env,
      log,
      queueLimit: envNumber('AGENTPIPE_APP_SERVER_QUEUE', 128, { integer: true }),
    });
    const transports = await import('../codex/app-server/transports.ts');
    if (!address) {
      log('agentpipe app-server: listening on stdio');
      await transports.serveStdio(server, maxLineFromEnv());
      await shutdownTelemetry(base);
      return;
    }
    const { token, generated } = serverToken({ token: flags.token, host: address.host }, log);
    const running = await transports.serveWebSocket(server, {
      ...address,
      token,
      allowOrigins: flags.allowOrigin ?? [],
      maxPayload: maxLineFromEnv(),
    });
    const url = generated && token ? `${running.url}?token=${token}` : running.url;
    log(`agentpipe app-server: listening on ${url} (${token ? 'token required' : 'no token: loopback only'})`);
    await untilSignal();
    await running.close();
    await server.close();
    await shutdownTelemetry(base);
  } catch (error) {
    reportUsageError(error, log);
  }
}

/** Sends the spans and metrics the threads left queued (bounded) and closes the exporters, when telemetry is on. */
async function shutdownTelemetry(base: { telemetry?: unknown }): Promise<void> {
  if (base.telemetry === undefined || base.telemetry === false) return;
  await (await import('../telemetry/load.ts')).shutdownTelemetry();
}
