/**
 * The walk for repositories below the writable folders leaves out the folders every sandbox hides whole (agentpipe's
 * home inside the working folder, `denyRead`): nothing below them can be written. A hidden folder that is writable
 * itself, or holds or lies inside a path kept visible, is walked as before.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { nestedReposUnder, unseenFolders } from '../../src/sandbox/nested-repos.ts';
import { tempDir } from '../helpers/workspace.ts';

/** A working folder with a repository in `home/projects/clone` and one in `lib/dep`. */
function workspace(): string {
  const root = tempDir();
  mkdirSync(path.join(root, 'home', 'projects', 'clone', '.git'), { recursive: true });
  mkdirSync(path.join(root, 'lib', 'dep', '.git'), { recursive: true });
  return root;
}

test('a hidden folder is not walked; the repositories elsewhere are found', () => {
  const root = workspace();
  const home = path.join(root, 'home');
  const unseen = unseenFolders([home], [], [root]);
  assert.ok(unseen.has(home));
  assert.deepEqual(nestedReposUnder([root], undefined, unseen).checkouts, [path.join(root, 'lib', 'dep')]);
  // Without it, both are found.
  assert.deepEqual(nestedReposUnder([root]).checkouts.sort(), [
    path.join(root, 'home', 'projects', 'clone'),
    path.join(root, 'lib', 'dep'),
  ]);
});

test('a hidden folder that is writable, holds a kept path or lies inside one is walked', () => {
  const root = workspace();
  const home = path.join(root, 'home');
  assert.equal(unseenFolders([home], [], [root, home]).size, 0, 'writable itself');
  assert.equal(unseenFolders([home], [path.join(home, 'projects')], [root]).size, 0, 'holds a kept path');
  assert.equal(unseenFolders([home], [root], [root]).size, 0, 'inside a kept path');
  // Named through a link, it is the same folder.
  const link = path.join(tempDir(), 'link');
  symlinkSync(root, link);
  assert.equal(unseenFolders([home], [], [root, path.join(link, 'home')]).size, 0, 'writable through a link');
  assert.equal(unseenFolders([home], [path.join(link, 'home', 'projects')], [root]).size, 0, 'kept through a link');
  // A hidden path that does not exist is nothing to leave out.
  assert.equal(unseenFolders([path.join(root, 'missing')], [], [root]).size, 0);
});
