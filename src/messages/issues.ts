/** One line of text for a failed zod parse, for the error messages of every schema. */
import type { z } from 'zod';

/** Each issue's message and where it is (`prefix.path`), joined by "; ". */
export function issuesOf(error: z.ZodError, prefix?: string): string {
  return error.issues
    .map((issue) => {
      const where = [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.');
      return where ? `${issue.message} (at ${where})` : issue.message;
    })
    .join('; ');
}
