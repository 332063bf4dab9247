/** The message of anything thrown: an Error's message, else the value as text (a non-Error has no `.message`). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
