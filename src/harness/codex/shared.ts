/**
 * What both Codex translators share (app-server.ts, and exec.ts for a codex without an app-server):
 * the provider agentpipe defines for `--base-url`, codex's shell wrapper taken off a command, and a
 * file change of codex as the Edit or Write call (input, `tool_use_result`) agentpipe's stream
 * carries.
 */
import { applyPatch } from 'diff';
import { editResultOf, writeResultOf } from '../../tools/file-patch.ts';
import { stderrTail } from '../cli-process.ts';

/** The provider id agentpipe defines for `--base-url` (Responses API over HTTPS SSE, no WebSocket attempt). */
export const CODEX_PROVIDER_ID = 'agentpipe';

/** `value` as a TOML basic string (the `-c key=value` overrides are parsed as TOML). */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, '\\u007f');
}

/**
 * `/bin/bash -lc '<script>'` (or `"<script>"`) → `<script>`: codex shows the shell wrapper it ran the model's command
 * with.
 */
export function unwrapShell(command: string): string {
  const single = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z)?sh -l?c '((?:[^']|'\\''|'"'"')*)'$/.exec(command);
  if (single) return single[1]!.replace(/'\\''|'"'"'/g, "'");
  const double = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z)?sh -l?c "((?:[^"\\]|\\.)*)"$/.exec(command);
  return double ? double[1]!.replace(/\\([\\"$`])/g, '$1') : command;
}

/** Codex's stderr without the lines it prints on every run. */
export function stderrOf(stderr: string): string {
  const noise =
    /^(WARNING: proceeding, even though we could not create PATH aliases|Reading additional input from stdin)/;
  return stderrTail(
    stderr
      .split('\n')
      .filter((line) => !noise.test(line))
      .join('\n'),
  );
}

/** The before-text of a unified diff applied to `after` (its hunks reversed); undefined when they do not fit. */
export function reverseUnifiedDiff(after: string, diff: string): string | undefined {
  const lines = after.split('\n');
  const hunks: { newStart: number; newLines: number; old: string[] }[] = [];
  let current: (typeof hunks)[number] | undefined;
  for (const line of diff.split('\n')) {
    const header = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (header) {
      current = { newStart: Number(header[1]), newLines: header[2] === undefined ? 1 : Number(header[2]), old: [] };
      hunks.push(current);
    } else if (current && (line.startsWith(' ') || line.startsWith('-'))) current.old.push(line.slice(1));
  }
  if (!hunks.length) return undefined;
  for (const hunk of hunks.reverse()) {
    const start = hunk.newLines === 0 ? hunk.newStart : hunk.newStart - 1;
    if (start < 0 || start + hunk.newLines > lines.length) return undefined;
    lines.splice(start, hunk.newLines, ...hunk.old);
  }
  return lines.join('\n');
}

/** A unified diff applied to `before`; undefined when it does not fit. */
export function forwardUnifiedDiff(before: string, diff: string): string | undefined {
  const applied = applyPatch(before, diff);
  return applied === false ? undefined : applied;
}

/** The smallest differing middle of `before` and `after`, in whole lines (Edit's old_string/new_string). */
export function changedRegion(before: string, after: string): { oldString: string; newString: string } {
  const a = before.split(/(?<=\n)/);
  const b = after.split(/(?<=\n)/);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { oldString: a.slice(head, a.length - tail).join(''), newString: b.slice(head, b.length - tail).join('') };
}

/** The `-c` overrides that point codex at `--base-url` (an OpenAI Responses API over HTTPS SSE, no WebSocket). */
export function providerOverrides(baseUrl: string | undefined, env: Record<string, string>): string[] {
  if (!baseUrl) return [];
  const overrides: string[] = [];
  const set = (key: string, value: string) => overrides.push('-c', `${key}=${value}`);
  const p = `model_providers.${CODEX_PROVIDER_ID}`;
  set('model_provider', tomlString(CODEX_PROVIDER_ID));
  set(`${p}.name`, tomlString('agentpipe --base-url'));
  set(`${p}.base_url`, tomlString(baseUrl));
  set(`${p}.wire_api`, tomlString('responses'));
  set(`${p}.supports_websockets`, 'false');
  const key = ['CODEX_API_KEY', 'OPENAI_API_KEY'].find((k) => env[k]);
  if (key) set(`${p}.env_key`, tomlString(key));
  else set(`${p}.requires_openai_auth`, 'true');
  return overrides;
}

/**
 * codex's sandbox never writes the shared /tmp (its TMPDIR, private to the harness, is writable instead): see
 * src/harness/codex.ts.
 */
export const PRIVATE_TEMP_OVERRIDES = ['-c', 'sandbox_workspace_write.exclude_slash_tmp=true'];

/** One changed file of codex. */
export interface CodexFileChange {
  path: string;
  kind: string;
}

/** A file change as agentpipe's tool call: its name, input, `tool_use_result` and result text. */
export interface FileCall {
  name: string;
  input: Record<string, unknown>;
  result: Record<string, unknown>;
  content: string;
}

/**
 * The Edit (or Write) call of one applied change: `before` is the file before it (undefined when not
 * known: a Write of the whole file), `after` the file now.
 */
export async function fileCallOf(
  change: CodexFileChange,
  before: string | undefined,
  after: string,
): Promise<FileCall> {
  const file = change.path;
  if (change.kind === 'delete')
    return {
      name: 'Bash',
      input: { command: `rm ${file}` },
      result: { stdout: '', stderr: '', interrupted: false, isImage: false },
      content: `Deleted ${file}`,
    };
  if (change.kind === 'add' || before === undefined) {
    const type = change.kind === 'add' ? 'create' : 'update';
    return {
      name: 'Write',
      input: { file_path: file, content: after },
      result: await writeResultOf(file, null, after, type),
      content: type === 'create' ? `File created successfully at: ${file}` : `The file ${file} has been updated.`,
    };
  }
  const { oldString, newString } = changedRegion(before, after);
  return {
    name: 'Edit',
    input: { file_path: file, old_string: oldString, new_string: newString },
    result: await editResultOf(file, oldString, newString, before, after),
    content: `The file ${file} has been updated.`,
  };
}

/** A command's end as the Bash call's result: the text the model reads, whether it failed, its `tool_use_result`. */
export function commandResult(
  output: string,
  code: number | undefined,
  status: string | undefined,
): { content: string; isError: boolean; result: Record<string, unknown> } {
  const declined = status === 'declined';
  const isError = declined || status === 'failed' || (code !== undefined && code !== 0);
  const note = declined ? 'Command was declined' : code !== undefined && code !== 0 ? `Exit code ${code}` : '';
  return {
    content: `${output.trimEnd()}${note ? `\n${note}` : ''}`.trim(),
    isError,
    result: {
      stdout: output,
      stderr: '',
      interrupted: false,
      isImage: false,
      ...(code !== undefined ? { exitCode: code } : {}),
    },
  };
}

/**
 * The call a change will be, from the file now and codex's diff (an added file's diff is its content),
 * with the file before the change: codex may have applied it already (nothing to approve), so a diff
 * that does not apply to the file is tried backwards.
 */
export function plannedCall(
  change: { path: string; kind: { type: string }; diff: string },
  now: string | null,
): { name: string; input: Record<string, unknown>; before: string | null | undefined } {
  const file = change.path;
  if (change.kind.type === 'delete') return { name: 'Bash', input: { command: `rm ${file}` }, before: now };
  if (change.kind.type === 'add' || now === null)
    return { name: 'Write', input: { file_path: file, content: change.diff }, before: null };
  const applied = forwardUnifiedDiff(now, change.diff);
  const before = applied === undefined ? reverseUnifiedDiff(now, change.diff) : now;
  const after = applied ?? now;
  if (before === undefined) return { name: 'Edit', input: { file_path: file, old_string: '', new_string: '' }, before };
  const { oldString, newString } = changedRegion(before, after);
  return { name: 'Edit', input: { file_path: file, old_string: oldString, new_string: newString }, before };
}
