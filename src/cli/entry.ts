/** Process entry: runs `main()` and exits once the output is flushed. */
import { main } from './main.ts';

main().then(
  () => process.exit(),
  (error: unknown) => {
    process.stderr.write(`agentpipe: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
