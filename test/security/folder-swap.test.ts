/**
 * Attacker row: a folder inside the working folder is swapped for a link to a folder outside it after the permission
 * check judged the path and before the tool opens it. Here the swap happens while the user is asked (the window a
 * background job of the model's could use; the test plays that job, so the row is deterministic). The user approved
 * a write of `d/x.txt` inside the project; the write must not land in the folder the link leads to.
 * file-write.ts resolves the folders above the file again when it opens it (only the last component is O_NOFOLLOW).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test(
  'a folder swapped for a link to outside while a Write inside it is asked: nothing is written outside',
  { todo: 'hole: file-write.ts follows a folder swapped for a link after the check (approved path not re-checked)' },
  async () => {
    const root = tempDir();
    const work = path.join(root, 'work');
    const outside = path.join(root, 'outside');
    for (const dir of [path.join(work, 'd'), outside]) mkdirSync(dir, { recursive: true });
    const script = writeScript(root, [
      { tool_calls: [{ id: 'toolu_w', name: 'Write', input: { file_path: 'd/x.txt', content: 'PWNED\n' } }] },
      { text: 'done' },
    ]);
    const home = path.join(root, 'home');
    const cli = new StreamDriver(
      ['--model', 'scripted', '--script', script, '--no-session-persistence', '--permission-prompt-tool', 'stdio'],
      work,
      { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') },
    );
    const result = cli.prompt('go');
    const asked = await cli.waitFor((l) => l.type === 'control_request' && l.request.subtype === 'can_use_tool');
    assert.equal(asked.request.input.file_path, 'd/x.txt');
    // The model's background job swaps the folder while the user reads the prompt.
    renameSync(path.join(work, 'd'), path.join(work, 'd.old'));
    symlinkSync(outside, path.join(work, 'd'));
    cli.send({
      type: 'control_response',
      response: { subtype: 'success', request_id: asked.request_id, response: { behavior: 'allow' } },
    });
    assert.equal((await result).subtype, 'success');
    assert.equal(await cli.end(), 0);
    assert.equal(existsSync(path.join(outside, 'x.txt')), false, 'written outside the working folder');
  },
);
