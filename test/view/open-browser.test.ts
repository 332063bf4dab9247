/**
 * `--open` starts the desktop's opener outside any sandbox: found on PATH's absolute entries only, so an `xdg-open`
 * in the folder `view` runs in (a project's, which a model's command may have written) is not the one started when
 * PATH holds `.`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openBrowser } from '../../src/view/open-browser.ts';
import { tempDir } from '../helpers/workspace.ts';

test(
  'the opener is not taken from a relative PATH entry (`.`, the folder view runs in)',
  { skip: process.platform !== 'linux' },
  async () => {
    const root = tempDir();
    const project = path.join(root, 'project');
    const bin = path.join(root, 'bin');
    const marks = path.join(root, 'marks');
    for (const dir of [project, bin, marks]) mkdirSync(dir);
    const opener = (dir: string, mark: string) => {
      writeFileSync(path.join(dir, 'xdg-open'), `#!/bin/sh\n: > '${path.join(marks, mark)}'\n`);
      chmodSync(path.join(dir, 'xdg-open'), 0o755);
    };
    opener(project, 'planted');
    opener(bin, 'real');
    const saved = { path: process.env.PATH, cwd: process.cwd() };
    const watcher = watch(marks);
    const touched = new Promise<string>((resolve, reject) => {
      watcher.on('change', (_event, name) => resolve(String(name)));
      watcher.on('error', reject);
    });
    try {
      process.chdir(project);
      process.env.PATH = `.:${bin}`;
      openBrowser('http://127.0.0.1:1/');
    } finally {
      process.env.PATH = saved.path;
      process.chdir(saved.cwd);
    }
    // One opener is started (the test runner's timeout ends this if none is).
    try {
      assert.equal(await touched, 'real');
    } finally {
      watcher.close();
    }
    assert.equal(existsSync(path.join(marks, 'planted')), false);
  },
);
