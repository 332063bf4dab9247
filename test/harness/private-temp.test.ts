/**
 * Every wrapped CLI gets a TMPDIR of its own (0700, inside the one its environment named), removed when the harness
 * closes: in the sandbox a wrapped CLI's TMPDIR is writable, and the user's own (often the shared /tmp) would make
 * all of it writable to the CLI. codex-temp.test.ts shows it with the real codex and its own sandbox.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { createHarness, harnessEnv } from '../../src/harness/index.ts';
import type { HarnessConfig } from '../../src/harness/types.ts';
import { configDefaults } from '../helpers/turn-state.ts';
import { tempDir } from '../helpers/workspace.ts';
import { cliBin } from './helpers.ts';

for (const name of ['claude', 'qwen', 'codex', 'gemini', 'acp'] as const)
  test(`--harness ${name}: a private TMPDIR inside the user's, gone at close`, async () => {
    const userTmp = tempDir();
    const config: HarnessConfig = {
      name,
      cwd: tempDir(),
      command: [name === 'acp' ? 'false' : cliBin(name)],
      env: harnessEnv(name, { PATH: process.env.PATH, TMPDIR: userTmp, AGENTPIPE_CODEX_PROTOCOL: 'exec' }),
      ...configDefaults([]),
    };
    const harness = await createHarness(config, crypto.randomUUID());
    // What the wrapped CLI will get: the harness was made from this environment.
    const tmp = config.env.TMPDIR ?? '';
    assert.equal(path.dirname(tmp), userTmp);
    assert.match(path.basename(tmp), new RegExp(`^agentpipe-${name}-`));
    assert.equal(statSync(tmp).mode & 0o777, 0o700);
    await harness.close();
    assert.equal(existsSync(tmp), false, 'removed at close');
  });
