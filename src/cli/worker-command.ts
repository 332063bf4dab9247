/**
 * `agentpipe worker --redis <url> [--concurrency N]`: runs sessions of the cluster's queue until
 * SIGINT/SIGTERM (then its running sessions go back to the queue for another worker; a second
 * signal exits at once). Redis unreachable at start: one clear line and exit code 1.
 */
import { InvalidArgumentError, type Command } from 'commander';

/** Flags of `worker`. */
interface WorkerFlags {
  redis: string;
  concurrency: number;
}

/** Parses a positive whole number. */
const count = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError('--concurrency must be a whole number of at least 1');
  return n;
};

/** Registers `agentpipe worker`; the cluster code (bullmq, ioredis) loads only when it runs. */
export function addWorkerCommand(program: Command, log: (line: string) => void): void {
  program
    .command('worker')
    .description(
      "run sessions of a Redis cluster: take session jobs from the queue, keep each session's log in Redis (see serve --redis, attach)",
    )
    .requiredOption('--redis <url>', 'the Redis server: redis://[:password@]host:port[/db]')
    .option('--concurrency <n>', 'sessions run at once', count, 1)
    .action(async (flags: WorkerFlags) => {
      const { startWorker } = await import('../cluster/worker.ts');
      const { RedisConnectionError } = await import('../cluster/connection.ts');
      let worker;
      try {
        worker = await startWorker({ redis: flags.redis, concurrency: flags.concurrency, log });
      } catch (error) {
        if (!(error instanceof RedisConnectionError)) throw error;
        log(`agentpipe worker: error: ${error.message}`);
        process.exitCode = 1;
        return;
      }
      const signalled = new Promise<NodeJS.Signals>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve(signal));
      });
      const outcome = await Promise.race([signalled, worker.done]);
      if (typeof outcome === 'string') {
        log(`agentpipe worker: ${outcome}: handing its sessions back to the queue (again to exit at once)`);
        for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(1));
      } else if (outcome) {
        log(`agentpipe worker: error: ${outcome.message}`);
        process.exitCode = 1;
      }
      await worker.close();
    });
}
