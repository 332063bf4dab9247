/**
 * What Read, Edit and Write tell the model, in Claude Code 2.1's words (read from its binary), so
 * a model sees the same answers from agentpipe as from Claude Code.
 */

/** Appended to a successful Edit or Write. */
const FILE_STATE_CURRENT = ' (file state is current in your context \u2014 no need to Read it back)';

/** A file that is not there (Read's error; Edit's refusal). */
export const fileDoesNotExist = (cwd: string): string =>
  `File does not exist. Note: your current working directory is ${cwd}.`;

/** A successful Edit (`unread`: of a file the model never read, so its content is not in the model's context). */
export const fileEdited = (file: string, replaceAll: boolean, unread = false): string => {
  const current = unread ? '' : FILE_STATE_CURRENT;
  return replaceAll
    ? `The file ${file} has been updated. All occurrences were successfully replaced.${current}`
    : `The file ${file} has been updated successfully.${current}`;
};

/** A successful Write of a new file (`created`) or over an existing one. */
export const fileWritten = (file: string, created: boolean): string =>
  created
    ? `File created successfully at: ${file}${FILE_STATE_CURRENT}`
    : `The file ${file} has been updated successfully.${FILE_STATE_CURRENT}`;
