/**
 * Attacker rows: the ripgrep agentpipe runs for Grep (and puts on a Bash command's PATH) is never one inside a working
 * folder. When agentpipe runs from a checkout it is working on, its packaged `rg` lies under the project's
 * node_modules, which commands the model runs may write (an approved command; acceptEdits' `cp` over it keeps its
 * executable mode); a PATH naming a project folder (`node_modules/.bin`, `.venv/bin`) is the same. A planted `rg`
 * would then run for every later Grep and auto-allowed `rg`, which nobody approved (outside any sandbox where it is
 * off).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { rgPath } from '@vscode/ripgrep';
import { ripgrepCommand, withRipgrepOnPath } from '../../src/tools/ripgrep.ts';

const packaged = realpathSync(rgPath);
/** A working folder that holds the packaged binary (agentpipe's own checkout opened as the project). */
const checkout = path.dirname(path.dirname(packaged));
/** A working folder that does not hold it (not the temp root: a checkout may itself lie under /tmp, as in CI). */
const elsewhere = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'rg-work-')));
after(() => rmSync(elsewhere, { recursive: true, force: true }));

/** A temp folder with an executable `bin/rg` of the model's; removed after `body`. */
async function withPlanted(body: (dir: string, bin: string) => Promise<void>): Promise<void> {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'rg-planted-')));
  try {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'rg'), '#!/bin/sh\ntouch PWNED\n');
    chmodSync(path.join(bin, 'rg'), 0o755);
    await body(dir, bin);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the packaged rg outside the working folders is used, resolved to its real path', async () => {
  assert.equal(await ripgrepCommand([elsewhere], {}), packaged);
  const env = await withRipgrepOnPath({ PATH: '/nonexistent' }, [elsewhere]);
  assert.equal(env.PATH, `/nonexistent${path.delimiter}${path.dirname(packaged)}`);
});

test("the packaged rg inside a working folder is not run by Grep nor put on a Bash command's PATH", async () => {
  assert.equal(await ripgrepCommand([checkout], { PATH: '/nonexistent' }), undefined);
  assert.equal(await ripgrepCommand([elsewhere, checkout], {}), undefined, 'any working folder, not only the cwd');
  const env = await withRipgrepOnPath({ PATH: '/nonexistent' }, [checkout]);
  assert.equal(env.PATH, '/nonexistent');
});

test('an rg on PATH inside a working folder is not the fallback; one outside it is', async () => {
  await withPlanted(async (dir, bin) => {
    assert.equal(await ripgrepCommand([checkout, dir], { PATH: bin }), undefined);
    assert.equal(await ripgrepCommand([checkout], { PATH: bin }), path.join(bin, 'rg'));
  });
});
