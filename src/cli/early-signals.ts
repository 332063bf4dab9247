/**
 * Signals that come while the CLI starts. Node kills a process on SIGINT, SIGTERM or SIGHUP until
 * something listens, and a print run owes its prompt a result from its first line on (issue 28,
 * B12: a signal in the first 25-350 ms killed it with no output). So the launcher
 * (bin/agentpipe.js) listens from its first line and keeps what comes; the command then takes the
 * kept signals (a print run: `takeEarlySignals`) or gives them back (a command with its own
 * handling or none: `releaseEarlySignals`, after which a kept signal is raised again).
 *
 * A test hook: AGENTPIPE_TEST_SIGNAL=SIGTERM@<stage> sends the process that signal when it
 * reaches the stage (`reachedStage`), so a test stops a run at each point of its start-up without
 * sleeping; the launcher reads the same variable for its own stage, `launcher`.
 */
import { isOneOf } from '../process/guards.ts';

/** The signals that stop a run. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** What the launcher leaves on globalThis (see bin/agentpipe.js). */
interface Kept {
  signals: StopSignal[];
  listener: (signal: StopSignal) => void;
}

const KEY = Symbol.for('agentpipe.earlySignals');
const store = globalThis as { [KEY]?: Kept };

/** Starts keeping signals, unless the launcher already does (a run from the sources, `node src/cli/entry.ts`). */
export function keepEarlySignals(): void {
  if (store[KEY]) return;
  const signals: StopSignal[] = [];
  const listener = (signal: StopSignal) => void signals.push(signal);
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  store[KEY] = { signals, listener };
}

/** From now on the stop signals go to `handler`; the ones kept so far are handed to it (on the next tick). */
export function takeEarlySignals(handler: (signal: StopSignal) => void): void {
  const kept = store[KEY];
  // The handler listens before the keeper stops: there is no moment without a listener.
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  if (!kept) return;
  delete store[KEY];
  for (const signal of STOP_SIGNALS) process.off(signal, kept.listener);
  if (kept.signals.length) process.nextTick(() => kept.signals.forEach((signal) => handler(signal)));
}

/** Stops keeping signals; one that was kept is raised again, for the command's own listeners or Node's default. */
export function releaseEarlySignals(): void {
  const kept = store[KEY];
  if (!kept) return;
  delete store[KEY];
  for (const signal of STOP_SIGNALS) process.off(signal, kept.listener);
  const first = kept.signals[0];
  if (first) process.kill(process.pid, first);
}

/** The named points of a print run's start-up that AGENTPIPE_TEST_SIGNAL can stop it at. */
export type StartStage = 'entry' | 'options' | 'input' | 'session';

/** The test hook: the signal of AGENTPIPE_TEST_SIGNAL (`SIGTERM@session`), when `stage` is its stage. */
export function reachedStage(stage: StartStage): void {
  const wanted = process.env.AGENTPIPE_TEST_SIGNAL;
  if (!wanted) return;
  const [signal, at] = wanted.split('@');
  if (at === stage && isOneOf(STOP_SIGNALS, signal)) process.kill(process.pid, signal);
}
