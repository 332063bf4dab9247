/** A failed Agent.run() that the caller catches does not crash the process (no second, unhandled rejection). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';

test('a run whose engine dies is caught by the caller, and the process goes on', () => {
  const dir = tempDir();
  const dying = path.join(dir, 'dying.js');
  writeFileSync(dying, 'process.stderr.write("gone\\n"); process.exit(3);\n');
  const program = path.join(dir, 'program.ts');
  writeFileSync(
    program,
    `
    import { Agent } from ${JSON.stringify(path.join(ROOT, 'src/index.ts'))};
    const agent = new Agent({ executable: ${JSON.stringify(dying)}, cwd: ${JSON.stringify(dir)} });
    try {
      await agent.run({ prompt: 'hello' });
      console.log('no error?');
    } catch (error) {
      console.log('caught: ' + (error as Error).message.split('\\n')[0]);
    }
    await new Promise((r) => setTimeout(r, 200));
    console.log('still alive');
  `,
  );
  const run = spawnSync(process.execPath, [program], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, AGENTPIPE_HOME: dir },
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /caught: /);
  assert.match(run.stdout, /still alive/);
});
