/**
 * codex's own sandbox covers each missing `.git`, `.codex`, `.agents` and `.aws` of every folder it may write with
 * an empty mount, which bubblewrap creates on the host while the command runs. With the shared /tmp writable, a
 * `/tmp/.git` came and went with each sandboxed codex command: Gemini CLI, looking for a repository from its folder
 * upward, then took a folder under /tmp for one (a tape recorded beside a codex test had a "# Git Repository" section
 * its replay did not). The harness keeps /tmp read-only for codex's sandbox and gives it a TMPDIR of its own, removed
 * at close: the empty mounts land there. Both protocols, the real codex, its own sandbox in acceptEdits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { driveHarness, harnessDirs, toolResults } from './helpers.ts';
import { startResponsesServer } from './fakes/responses-api.ts';

// Exits 0 whatever it finds: codex retries a command that failed in its sandbox outside it.
const PROBE =
  'touch /tmp/agentpipe-codex-probe-$$ 2>/dev/null && rm /tmp/agentpipe-codex-probe-$$ && echo SLASH_TMP_WRITABLE; ' +
  'echo "TMPDIR=$TMPDIR"; touch "$TMPDIR/made" && echo TMPDIR_WRITABLE; ls -A "$TMPDIR" | grep -x .git; true';

for (const protocol of ['app-server', 'exec'])
  test(`codex ${protocol}: its sandbox never writes the shared /tmp; its TMPDIR is private and goes at close`, async () => {
    const server = await startResponsesServer([
      { kind: 'call', name: 'exec_command', arguments: { cmd: PROBE } },
      { kind: 'text', text: 'Looked.' },
    ]);
    const { home, cwd } = harnessDirs('codex-temp');
    const driven = await driveHarness(
      { name: 'codex', cwd, baseUrl: server.baseUrl, model: 'fake-model', permissionMode: 'acceptEdits' },
      { HOME: home, CODEX_HOME: home, CODEX_API_KEY: 'sk-fake', AGENTPIPE_CODEX_PROTOCOL: protocol },
    );
    let tmp = '';
    try {
      const { messages, outcome } = await driven.prompt('look around');
      assert.equal(outcome.subtype, 'success');
      const output = String(toolResults(messages)[0]?.block.content);
      assert.doesNotMatch(output, /SLASH_TMP_WRITABLE/, 'codex sandbox keeps /tmp read-only');
      tmp = /TMPDIR=(.*)/.exec(output)?.[1] ?? '';
      assert.equal(path.dirname(tmp), os.tmpdir(), output);
      assert.match(path.basename(tmp), /^agentpipe-codex-/);
      assert.equal(statSync(tmp).mode & 0o777, 0o700, 'no one else may look in');
      assert.match(output, /TMPDIR_WRITABLE\n\.git/, "codex's empty .git went to its own TMPDIR");
    } finally {
      await driven.harness.close();
      await server.close();
    }
    assert.equal(existsSync(tmp), false, 'removed at close');
  });
