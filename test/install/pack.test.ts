/**
 * Install anywhere: the packed tarball holds dist/ built (nothing builds at a consumer's install), `npm install -g`
 * of it into a fresh prefix gives an `agentpipe` that answers `-p hi` in another folder with the pinned Node as the
 * only Node on PATH, and the official SDK runs it as its `pathToClaudeCodeExecutable`. A folder install does not
 * rebuild dist/ (scripts/prepare.mjs). The install is --prefer-offline: the packages come from the npm cache that
 * `npm ci` filled; only the version lists a range needs (which `npm ci` does not fetch: it installs from the lock file)
 * may come from the registry, as on a user's machine. Install scripts are skipped: tree-sitter's prebuilt binding needs
 * a newer libstdc++ than Debian 12's, so its install compiles it from source, minutes on a loaded 2-core machine;
 * without it agentpipe parses with the WebAssembly grammar, which this run then checks. Takes
 * ~20 s on a quiet machine (the pack ~5 s, the install ~13 s), over 2 minutes under a load of 20: its own timeout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { ROOT } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { runToEnd } from '../helpers/processes.ts';

/** npm's own script (npm-cli.js), to run it with the pinned Node. */
function npmCli(): string {
  const fromEnv = process.env.npm_execpath;
  if (fromEnv && /npm-cli\.js$/.test(fromEnv)) return fromEnv;
  if (fromEnv && /npx-cli\.js$/.test(fromEnv)) return fromEnv.replace(/npx-cli\.js$/, 'npm-cli.js');
  return realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
}

/** PATH with only the pinned Node (no other `node`) and the system's tools. */
const nodeOnlyPath = (...first: string[]) => [...first, path.dirname(process.execPath), '/usr/bin', '/bin'].join(':');

const run = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) =>
  runToEnd(command, args, { cwd, env });

test(
  'npm pack gives a prebuilt tarball; npm install -g of it runs agentpipe -p hi elsewhere and under the SDK',
  {
    timeout: 600_000,
  },
  async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(pkg.scripts.prepack, 'npm run build', 'the tarball is built when packed');
    const dir = scratchDir('agentpipe-pack-');
    const npm = npmCli();
    const env = { ...process.env, PATH: nodeOnlyPath(), npm_config_update_notifier: 'false' };
    // dist/ is built (npm test builds first): pack it as it is, without building twice.
    const packed = await run(process.execPath, [npm, 'pack', '--ignore-scripts', '--pack-destination', dir], ROOT, env);
    assert.equal(packed.code, 0, packed.stderr);
    const tarball = path.join(dir, packed.stdout.trim().split('\n').at(-1)!);
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
    for (const file of ['package/bin/agentpipe.js', 'package/dist/bin/entry.cjs', 'package/dist/web/index.html'])
      assert.match(listing, new RegExp(`^${file.replace(/\./g, '\\.')}$`, 'm'), `${file} is in the tarball`);
    assert.doesNotMatch(listing, /^package\/test\//m);

    const prefix = path.join(dir, 'prefix');
    const installed = await run(
      process.execPath,
      [
        npm,
        'install',
        '-g',
        '--prefix',
        prefix,
        tarball,
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
      ],
      dir,
      env,
    );
    assert.equal(installed.code, 0, installed.stderr);

    const project = path.join(dir, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'NOTES.md'), '# Notes\n');
    const home = path.join(dir, 'home');
    const userEnv = { PATH: nodeOnlyPath(path.join(prefix, 'bin')), HOME: home, AGENTPIPE_HOME: home };
    const hi = await run('agentpipe', ['-p', 'hi'], project, userEnv);
    assert.equal(hi.code, 0, hi.stderr);
    assert.match(hi.stdout, /NOTES\.md/);

    let result: { type: string; subtype?: string; is_error?: boolean } | undefined;
    for await (const message of query({
      prompt: 'hi',
      options: { pathToClaudeCodeExecutable: path.join(prefix, 'bin', 'agentpipe'), cwd: project, env: userEnv },
    }))
      if (message.type === 'result') result = message;
    assert.equal(result?.subtype, 'success');
    assert.equal(result?.is_error, false);
  },
);

test('a folder install elsewhere does not rebuild a built dist/ (prepare)', async () => {
  const elsewhere = scratchDir('agentpipe-consumer-');
  const skip = await run(process.execPath, ['scripts/prepare.mjs'], ROOT, { ...process.env, INIT_CWD: elsewhere });
  assert.equal(skip.code, 0, skip.stderr);
  assert.equal(
    skip.stderr,
    `agentpipe: dist/ is built; not rebuilding it for ${elsewhere} (run npm run build in ${ROOT})\n`,
  );
});
