/**
 * `agentpipe worker --redis <url> [--concurrency N] [--archive-dir D] [--archive-after MS]`: runs
 * sessions of the cluster's queue. SIGTERM (or SIGINT, SIGHUP) drains it: no new job, running
 * prompts finish within `--grace` ms (then they are interrupted), every session goes back to the
 * queue with its lease released (another worker takes it at once), exit code 0; a second signal
 * exits at once. Sessions idle for `--archive-after` ms after their run ended are archived to
 * `<archive dir>/<session id>.jsonl` and their Redis keys deleted. Redis unreachable at start:
 * one clear line and exit code 1.
 */
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { agentpipeHome } from '../session/paths.ts';

/** Flags of `worker`. */
interface WorkerFlags {
  redis: string;
  concurrency: number;
  archive: boolean;
  archiveDir?: string;
  archiveAfter: number;
  grace: number;
}

/** Parses a whole number of at least `min` for `flag`. */
const whole =
  (flag: string, min: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${flag} must be a whole number of at least ${min}`);
    return n;
  };

/** The main program's flags given with `worker` (`--model`, `--cwd` ...): a worker would ignore them. */
function sessionFlagsGiven(command: Command): string[] {
  const program = command.parent;
  if (!program) return [];
  return program.options
    .filter((option) => program.getOptionValueSource(option.attributeName()) === 'cli')
    .map((option) => option.long ?? option.short ?? option.name());
}

/** Registers `agentpipe worker`; the cluster code (bullmq, ioredis) loads only when it runs. */
export function addWorkerCommand(program: Command, log: (line: string) => void): void {
  program
    .command('worker')
    .description(
      "run sessions of a Redis cluster: take session jobs from the queue, keep each session's log in Redis " +
        '(see serve --redis, attach)',
    )
    .requiredOption('--redis <url>', 'the Redis server: redis://[:password@]host:port[/db]')
    .option('--concurrency <n>', 'sessions run at once', whole('--concurrency', 1), 1)
    .option(
      '--archive-dir <dir>',
      'where idle sessions are archived as JSONL transcripts (the same folder for every worker; default ' +
        '$AGENTPIPE_HOME/archive)',
    )
    .option(
      '--archive-after <ms>',
      'archive a session (and delete its Redis keys) once its run ended and it had no input or output for this long',
      whole('--archive-after', 0),
      3_600_000,
    )
    .option('--no-archive', 'never archive: sessions stay in Redis until deleted')
    .option(
      '--grace <ms>',
      'on SIGTERM, how long running prompts may take to finish before they are interrupted',
      whole('--grace', 0),
      30_000,
    )
    .action((flags: WorkerFlags, command: Command) => runWorker(flags, command, log));
}

/** `agentpipe worker`: refuses session flags, runs the worker until it fails or a signal drains it. */
async function runWorker(flags: WorkerFlags, command: Command, log: (line: string) => void): Promise<void> {
  const given = sessionFlagsGiven(command);
  if (given.length) {
    const what = given.length === 1 ? 'is a session flag' : 'are session flags';
    log(
      `agentpipe worker: error: ${given.join(', ')} ${what}: a worker runs each session with the options its ` +
        'client sent; give them to `agentpipe serve --redis` or to query({cluster}) (agentpipe help worker ' +
        "lists the worker's flags)",
    );
    process.exitCode = 1;
    return;
  }
  const { startWorker } = await import('../cluster/worker/worker.ts');
  const { RedisConnectionError, warnIfPasswordless } = await import('../cluster/connection.ts');
  let worker;
  try {
    await warnIfPasswordless(flags.redis, 'agentpipe worker', log);
    worker = await startWorker({
      redis: flags.redis,
      concurrency: flags.concurrency,
      log,
      archiveDir: flags.archive ? path.resolve(flags.archiveDir ?? path.join(agentpipeHome(), 'archive')) : undefined,
      archiveAfterMs: flags.archiveAfter,
    });
  } catch (error) {
    if (!RedisConnectionError.isInstance(error)) throw error;
    log(`agentpipe worker: error: ${error.message}`);
    process.exitCode = 1;
    return;
  }
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve(signal));
  });
  const outcome = await Promise.race([signalled, worker.done]);
  if (typeof outcome === 'string') {
    log(
      `agentpipe worker: ${outcome}: draining: no new session, running prompts finish (up to ` +
        `${flags.grace} ms), then each session goes back to the queue (again to exit at once)`,
    );
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(1));
    await worker.drain(flags.grace);
    log('agentpipe worker: drained: every session handed back');
    await shutdownTelemetry();
    return;
  }
  if (outcome) {
    log(`agentpipe worker: error: ${outcome.message}`);
    process.exitCode = 1;
  }
  await worker.close();
  await shutdownTelemetry();
}

/** Sends the spans and metrics the sessions left queued (bounded), when telemetry ever started. */
async function shutdownTelemetry(): Promise<void> {
  await (await import('../telemetry/load.ts')).shutdownTelemetry();
}
