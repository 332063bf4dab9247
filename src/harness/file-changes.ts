/**
 * The `tool_use_result` of a Write or Edit call that a wrapped CLI ran but reports no diff for (Qwen Code, Gemini
 * CLI): built from the file as read when the call was announced and as read when its result came, so every face
 * shows the diff as it does for agentpipe's own tools.
 *
 * The create-vs-update race: the CLI may change the file before the harness reads the announcement (with no
 * permission prompt in between), so the text read "before" is already the text after, or was never read. An Edit
 * is then undone from its own strings (`reverseEdit`); a Write cannot be, and the CLI's own words of its result say
 * whether it created the file ("created", "new file": Qwen Code's and Gemini CLI's) or updated one, whose old text
 * is then unknown (`originalFile: null`, `type: 'update'`).
 */
import { editResultOf, reverseEdit, writeResultOf } from '../tools/file-patch.ts';
import { str } from '../process/guards.ts';

/** A Write or Edit call of a wrapped CLI, in agentpipe's names and input shapes, its file resolved. */
export interface FileCall {
  name: 'Write' | 'Edit';
  file: string;
  input: Record<string, unknown>;
}

/** Whether a tool call changes a file whose change a harness should show (a Write or an Edit). */
export const isFileCallName = (name: string): name is FileCall['name'] => name === 'Write' || name === 'Edit';

/**
 * The call's `tool_use_result`. `before`: the file when the call was announced (null: it did not exist; undefined:
 * not read); `after`: the file when its result came (null: unreadable, and there is no result); `words`: the CLI's
 * text of the result.
 */
export async function fileChangeResult(
  call: FileCall,
  before: string | null | undefined,
  after: string | null,
  words: string,
): Promise<Awaited<ReturnType<typeof writeResultOf>> | Awaited<ReturnType<typeof editResultOf>> | undefined> {
  if (after === null) return undefined;
  const oldString = str(call.input.old_string) ?? '';
  const newString = str(call.input.new_string) ?? '';
  let original = before === undefined ? after : before;
  // Changed before it was read: undo the replacement instead.
  if (call.name === 'Edit' && (original === null || original === after))
    original = reverseEdit(after, oldString, newString) ?? original;
  if (call.name === 'Edit' && original !== null)
    return editResultOf(call.file, oldString, newString, original, after, call.input.replace_all === true);
  // Written before it was read: the CLI's own words say whether the file was new.
  const raced = original === after;
  const created = original === null || (raced && /\b(created|new file)\b/i.test(words));
  return writeResultOf(call.file, created || raced ? null : original, after, created ? 'create' : 'update');
}
