/**
 * Attacker rows: a folder inside the working folder is swapped for a link to a folder outside it after the permission
 * check judged the path and before the tool opens it. Here the swap happens while the user is asked (the window a
 * background job of the model's could use; the test plays that job, so the rows are deterministic). The user approved
 * a write inside the project; the write must not land in the folder the link leads to (src/tools/judged-path.ts,
 * file-write.ts). And the check must not refuse what it should not: a working folder reached through a link, a new
 * subfolder, a folder swapped back and forth before the check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StreamDriver, type Line } from '../helpers/stream-driver.ts';
import { ONE_CELL_NOTEBOOK, tempDir, writeScript } from '../helpers/workspace.ts';

interface Swap {
  /** The call the model makes (relative paths, in `work`). */
  call: { name: string; input: Record<string, unknown> };
  /** A call the model makes first, which runs without asking (a Read). */
  first?: { name: string; input: Record<string, unknown> };
  /** Files in `work` and `outside` before the run. */
  files?: Record<string, string>;
  /** What is done before the run starts. */
  before?: (work: string, outside: string) => void;
  /** What happens while the user is asked; default: `work/d` becomes a link to `outside`. */
  during?: (work: string, outside: string) => void;
}

/** Runs one call that asks, approves it after `during`, and returns the tool result and the folders. */
async function approveAfter(swap: Swap): Promise<{ result: Line; work: string; outside: string }> {
  const root = tempDir();
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  for (const dir of [path.join(work, 'd'), outside]) mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(swap.files ?? {})) writeFileSync(path.join(root, name), text);
  swap.before?.(work, outside);
  const turns = [{ tool_calls: [{ id: 'toolu_w', ...swap.call }] }, { text: 'done' }];
  if (swap.first) turns.unshift({ tool_calls: [{ id: 'toolu_r', ...swap.first }] });
  const script = writeScript(root, turns);
  const home = path.join(root, 'home');
  const cli = new StreamDriver(
    ['--model', 'scripted', '--script', script, '--no-session-persistence', '--permission-prompt-tool', 'stdio'],
    work,
    { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') },
  );
  const done = cli.prompt('go');
  const asked = await cli.waitFor((l) => l.type === 'control_request' && l.request.subtype === 'can_use_tool');
  (swap.during ?? swapForLink)(work, outside);
  cli.send({
    type: 'control_response',
    response: { subtype: 'success', request_id: asked.request_id, response: { behavior: 'allow' } },
  });
  assert.equal((await done).subtype, 'success');
  const result = await cli.waitFor(
    (l) =>
      l.type === 'user' &&
      l.message.content[0]?.type === 'tool_result' &&
      l.message.content[0].tool_use_id === 'toolu_w',
  );
  assert.equal(await cli.end(), 0);
  return { result: result.message.content[0], work, outside };
}

/** The model's background job: `d` becomes a link to the folder outside. */
function swapForLink(work: string, outside: string): void {
  renameSync(path.join(work, 'd'), path.join(work, 'd.old'));
  symlinkSync(outside, path.join(work, 'd'));
}

const text = (block: Line): string => (typeof block.content === 'string' ? block.content : JSON.stringify(block));

test('a folder swapped for a link while a Write inside it is asked: nothing is written outside', async () => {
  const { result, outside } = await approveAfter({
    call: { name: 'Write', input: { file_path: 'd/x.txt', content: 'PWNED\n' } },
  });
  assert.equal(existsSync(path.join(outside, 'x.txt')), false, 'written outside the working folder');
  assert.equal(result.is_error, true);
  assert.match(text(result), /replaced by a link/);
});

test('the same for a Write into a new subfolder: no file, and no folder made outside', async () => {
  const { result, outside } = await approveAfter({
    call: { name: 'Write', input: { file_path: 'd/new/x.txt', content: 'PWNED\n' } },
  });
  assert.equal(existsSync(path.join(outside, 'new')), false, 'a folder made outside the working folder');
  assert.equal(result.is_error, true);
});

test('the same for an Edit: the file outside is neither changed nor read into the answer', async () => {
  const { result, outside } = await approveAfter({
    first: { name: 'Read', input: { file_path: 'd/f.txt' } },
    call: { name: 'Edit', input: { file_path: 'd/f.txt', old_string: 'secret', new_string: 'PWNED' } },
    files: { 'work/d/f.txt': 'secret inside\n', 'outside/f.txt': 'secret outside\n' },
  });
  assert.equal(readFileSync(path.join(outside, 'f.txt'), 'utf8'), 'secret outside\n');
  assert.equal(result.is_error, true);
  assert.doesNotMatch(text(result), /secret outside/);
  assert.match(text(result), /replaced by a link/);
});

test('the same for a NotebookEdit', async () => {
  const notebook = ONE_CELL_NOTEBOOK;
  const { result, outside } = await approveAfter({
    first: { name: 'Read', input: { file_path: 'd/n.ipynb' } },
    call: { name: 'NotebookEdit', input: { notebook_path: 'd/n.ipynb', cell_id: 'c1', new_source: 'PWNED' } },
    files: { 'work/d/n.ipynb': notebook, 'outside/n.ipynb': notebook },
  });
  assert.equal(readFileSync(path.join(outside, 'n.ipynb'), 'utf8'), notebook);
  assert.equal(result.is_error, true);
  assert.match(text(result), /replaced by a link/);
});

test('held, not refused: an approved Write with no swap, into a new subfolder, lands where it was judged', async () => {
  const { result, work } = await approveAfter({
    call: { name: 'Write', input: { file_path: 'd/new/deeper/x.txt', content: 'ok\n' } },
    during: () => {},
  });
  assert.notEqual(result.is_error, true, text(result));
  assert.equal(readFileSync(path.join(work, 'd/new/deeper/x.txt'), 'utf8'), 'ok\n');
});

test('held, not refused: a write through a link that was there when the call was judged goes where it leads', async () => {
  const { result, outside } = await approveAfter({
    call: { name: 'Write', input: { file_path: 'l/x.txt', content: 'approved\n' } },
    before: (work, there) => symlinkSync(there, path.join(work, 'l')),
    during: () => {},
  });
  assert.notEqual(result.is_error, true, text(result));
  assert.equal(readFileSync(path.join(outside, 'x.txt'), 'utf8'), 'approved\n');
});

/** `d` leads to `approved` (outside the working folder: a Read there asks) when the call is judged. */
function linkToApproved(work: string): void {
  rmSync(path.join(work, 'd'), { recursive: true });
  mkdirSync(path.join(work, '..', 'approved'));
  writeFileSync(path.join(work, '..', 'approved', 'x.txt'), 'APPROVED\n');
  symlinkSync(path.join(work, '..', 'approved'), path.join(work, 'd'));
}

test('a Read approved outside: the link re-pointed while it is asked is not followed to another file', async () => {
  const { result } = await approveAfter({
    call: { name: 'Read', input: { file_path: 'd/x.txt' } },
    files: { 'outside/x.txt': 'SECRET\n' },
    before: linkToApproved,
    during: (work, outside) => {
      rmSync(path.join(work, 'd'));
      symlinkSync(outside, path.join(work, 'd'));
    },
  });
  assert.doesNotMatch(text(result), /SECRET/);
  assert.equal(result.is_error, true);
  assert.match(text(result), /read refused/);
});

test('held, not refused: an approved Read with no swap reads the file the link led to', async () => {
  const { result } = await approveAfter({
    call: { name: 'Read', input: { file_path: 'd/x.txt' } },
    before: linkToApproved,
    during: () => {},
  });
  assert.match(text(result), /APPROVED/);
});

/** `d` leads to `approved` when the call is judged, then to `outside` (which holds SECRET) while it is asked. */
const repointed: Pick<Swap, 'files' | 'before' | 'during'> = {
  files: { 'outside/x.txt': 'SECRET\n', 'outside/secret-name.txt': 'SECRET\n' },
  before: linkToApproved,
  during: (work, outside) => {
    rmSync(path.join(work, 'd'));
    symlinkSync(outside, path.join(work, 'd'));
  },
};

for (const call of [
  { name: 'Grep', input: { pattern: 'SECRET|APPROVED', path: 'd', output_mode: 'content' } },
  { name: 'Grep', input: { pattern: 'SECRET|APPROVED', path: 'd/x.txt', output_mode: 'content' } },
  { name: 'Glob', input: { pattern: '*.txt', path: 'd' } },
]) {
  const what = `${call.name} of ${call.input.path}`;
  test(`a ${what} approved outside: the link re-pointed while it is asked is not followed elsewhere`, async () => {
    const { result } = await approveAfter({ call, ...repointed });
    assert.doesNotMatch(text(result), /SECRET|secret-name/);
    assert.equal(result.is_error, true);
    assert.match(text(result), /search refused/);
  });

  test(`held, not refused: an approved ${what} with no swap searches where the link led`, async () => {
    const { result } = await approveAfter({ call, before: linkToApproved, during: () => {} });
    assert.notEqual(result.is_error, true, text(result));
    assert.match(text(result), call.name === 'Glob' ? /^d\/x\.txt$/ : /APPROVED/);
  });
}
