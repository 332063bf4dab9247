/** Process entry: runs `main()`, stops what it left running, and exits once stdout and stderr are flushed. */
import { flushStdio, watchStdio } from '../process/stdio.ts';
import { killAllGroups } from '../process/run.ts';
import { ownWasmTiering } from '../process/wasm-tier-up.ts';
import { keepEarlySignals, reachedStage } from './early-signals.ts';
import { main } from './main.ts';

// A signal from here on is kept for the command (the launcher keeps them from its first line).
keepEarlySignals();
reachedStage('entry');

async function exit(code?: number): Promise<never> {
  killAllGroups();
  await flushStdio();
  process.exit(code ?? process.exitCode);
}

watchStdio();
ownWasmTiering();
main().then(
  () => exit(),
  (error: unknown) => {
    process.stderr.write(`agentpipe: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    return exit(1);
  },
);
