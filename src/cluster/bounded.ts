/**
 * A step of a shutdown that may wait on a Redis that is gone (BullMQ queues its commands until it
 * comes back): raced against a bound, so a worker or front end told to stop does stop.
 */

/** `step`'s value, or undefined (after `onLate`) when it did not settle within `ms`; a failed step gives undefined. */
export async function bounded<T>(step: Promise<T>, ms: number, onLate: () => void): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      onLate();
      resolve(undefined);
    }, ms);
    timer.unref();
  });
  try {
    // A failed step of a shutdown gives undefined, as documented above.
    return await Promise.race([step.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
