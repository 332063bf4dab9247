/**
 * `agentpipe attach <session-id> --redis <url> [--from <id>]`: prints a cluster session's
 * messages as stream-json: those already in its log after `--from` (a stream id or a message
 * uuid; default: from the start), then follows it live (with `--include-partial-messages`, the
 * deltas interleaved) until the session's run ends, it is archived or deleted, or SIGINT. A
 * reader that goes away (EPIPE) ends it quietly; output is flushed before exit.
 */
import { errorMessage } from '../process/errors.ts';
import type { Command } from 'commander';
import type { CliFlags } from './flags.ts';
import type { LogMessage } from '../cluster/log/index.ts';
import type { SessionLog } from '../cluster/redis.ts';

/** Flags of `attach`, merged with the main program's. */
interface AttachFlags extends CliFlags {
  redis: string;
  from?: string;
  follow: boolean;
}

const STREAM_ID = /^\d+-\d+$/;
/** How long attach waits through a Redis outage (the follow's own bound, LogStore's tailGiveUpMs default). */
const FOLLOW_RETRY_MS = 30_000;

/** Registers `agentpipe attach`; the cluster code loads only when it runs. */
export function addAttachCommand(program: Command, log: (line: string) => void): void {
  program
    .command('attach')
    .description(
      "print a cluster session's messages from its Redis log, then follow it live: stream-json, as " +
        '--output-format stream-json --verbose prints them (the default; --include-partial-messages adds the deltas)',
    )
    .argument(
      '<session-id>',
      'the session (its id, as the front end or `result.session_id` gave it, or a unique start of it)',
    )
    .requiredOption('--redis <url>', 'the Redis server: redis://[:password@]host:port[/db]')
    .option('--from <id>', 'only messages after this one: a stream id (<ms>-<seq>) or a message uuid')
    .option('--no-follow', 'print what the log holds and exit')
    .action(async (sessionId: string, _flags: unknown, command: Command) => {
      // stream-json is attach's only format, so it is the default: the program's own default (text) does not apply.
      const given = command.getOptionValueSourceWithGlobals('outputFormat') === 'cli';
      const flags = command.optsWithGlobals<AttachFlags>();
      process.exitCode = await attach(sessionId, given ? flags : { ...flags, outputFormat: 'stream-json' }, log);
    });
}

async function attach(sessionId: string, flags: AttachFlags, log: (line: string) => void): Promise<number> {
  const fail = (message: string): number => {
    log(`agentpipe attach: error: ${message}`);
    return 1;
  };
  if (flags.outputFormat !== 'stream-json')
    return fail(`attach prints stream-json only (its default), not ${flags.outputFormat}: leave --output-format out`);
  const { SessionLog, RedisConnectionError } = await import('../cluster/redis.ts');
  const { DATA_LOST, isInternal } = await import('../cluster/log/index.ts');
  const { retryRedis } = await import('../cluster/redis-retry.ts');
  const sessions = new SessionLog({ redis: flags.redis });
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal);
  const print = stdoutPrinter(stop);
  let watch: NodeJS.Timeout | undefined;
  let epoch: { stop: () => void; lost: () => Promise<boolean> } | undefined;
  try {
    const badId = keysError(sessions, sessionId);
    if (badId !== undefined) return fail(badId);
    await sessions.connect();
    // Redis restarted without its data: said, not waited on (watched from the start: a loss while the log is printed
    // is seen too).
    let lostData = false;
    epoch = await sessions.watchDataLoss(() => {
      lostData = true;
      stop.abort();
    });
    const found = await findSession(sessions, sessionId);
    if (!found.ok) return fail(found.error);
    sessionId = found.id;
    const start = await startId(sessions, sessionId, flags.from);
    if (!start.ok) return fail(start.error);
    const from = start.id;
    const partial = flags.includePartialMessages === true;
    const show = (message: LogMessage): boolean => !isInternal(message) && (partial || message.type !== 'stream_event');
    const liveFrom = await sessions.lastLiveId(sessionId);
    let last = from;
    let ended = false;
    for (const entry of await sessions.read(sessionId, from)) {
      // An end marker that is not the last entry was the end of an earlier run of the session.
      ended = entry.message.type === 'agentpipe_session_end';
      if (show(entry.message)) await print(entry.message);
      last = entry.id;
    }
    if (!flags.follow || ended || stop.signal.aborted) return 0;
    // The deltas of the message being written now (they follow the last durable message); through a Redis blip.
    const deltas = await retryRedis(() => sessions.readLive(sessionId), {
      forMs: FOLLOW_RETRY_MS,
      signal: stop.signal,
    });
    for (const entry of deltas) if (entry.after === last && show(entry.message)) await print(entry.message);
    // Archived or deleted meanwhile: nothing more will come (unless Redis lost everything: then that is said).
    watch = setInterval(() => {
      sessions.exists(sessionId).then(
        async (there) => {
          if (there) return;
          lostData ||= (await epoch?.lost().catch(() => false)) === true;
          stop.abort();
        },
        () => undefined,
      );
    }, 1000);
    for await (const { entry } of sessions.follow(sessionId, last, stop.signal, { fromId: liveFrom })) {
      if (entry.message.type === 'agentpipe_session_end') break;
      if (show(entry.message)) await print(entry.message);
    }
    return lostData ? fail(DATA_LOST) : 0;
  } catch (error) {
    if (RedisConnectionError.isInstance(error)) return fail(error.message);
    throw error;
  } finally {
    epoch?.stop();
    clearInterval(watch);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal);
    await sessions.close();
  }
}

/** Why `sessionId` cannot name a session's keys, if it cannot. */
function keysError(sessions: { keys(id: string): unknown }, sessionId: string): string | undefined {
  try {
    sessions.keys(sessionId);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

type Found = { ok: true; id: string } | { ok: false; error: string };

/** The session `sessionId` names: itself when in Redis, else the one session whose id starts with it. */
async function findSession(sessions: SessionLog, sessionId: string): Promise<Found> {
  if (await sessions.exists(sessionId)) return { ok: true, id: sessionId };
  const { isSessionIdPrefix, matchIdPrefix, ambiguousIdLine } = await import('../session/find-session.ts');
  const match = isSessionIdPrefix(sessionId) ? matchIdPrefix(sessionId, await sessions.sessionIds(10_000)) : [];
  if (typeof match === 'string') return { ok: true, id: match };
  return {
    ok: false,
    error:
      match.length > 1
        ? ambiguousIdLine(sessionId, match)
        : `no session ${sessionId} in Redis (not started yet, archived or deleted)`,
  };
}

/** The stream id to print after: `--from` as a stream id, or the id of the message with that uuid; else the start. */
async function startId(sessions: SessionLog, sessionId: string, from: string | undefined): Promise<Found> {
  if (from === undefined) return { ok: true, id: '0-0' };
  const id = STREAM_ID.test(from) ? from : await sessions.idOfUuid(sessionId, from);
  if (!id)
    return {
      ok: false,
      error: `--from ${from}: not a stream id, and no message of session ${sessionId} has that uuid`,
    };
  return { ok: true, id };
}

/**
 * Prints messages as stream-json lines on stdout, waiting for it to drain (or `stop`); a reader that went away
 * (EPIPE) stops the attach and is written to no more.
 */
function stdoutPrinter(stop: AbortController): (message: object) => Promise<void> {
  let readerGone = false;
  process.stdout.on('error', () => {
    readerGone = true;
    stop.abort();
  });
  return async (message) => {
    if (readerGone) return;
    if (!process.stdout.write(`${JSON.stringify(message)}\n`)) {
      await new Promise<void>((resolve) => {
        const done = (): void => resolve();
        process.stdout.once('drain', done);
        process.stdout.once('error', done);
        stop.signal.addEventListener('abort', done, { once: true });
      });
    }
  };
}
