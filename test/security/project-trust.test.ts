/**
 * A cloned repository's own settings are not trusted by default (issue 27). The repository here is
 * a real `git clone` of a local repository whose `.agentpipe/` carries everything a settings file
 * can: a SessionStart hook, an allow rule for Bash, a sandbox block, an MCP server, a local file
 * and an agent. Opened as it is, none of it applies and each file is named on stderr; after
 * `agentpipe trust` all of it does; `--trust-project` is one run's trust; `--remove` undoes it.
 * The official SDK's `settingSources` naming `project` counts as trust, as with Claude Code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { parseLines, runCli, CLI_PATH } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { FIXTURE } from '../mcp/helpers.ts';
import { clonedRepository } from '../helpers/git-clone.ts';

const SANDBOX = { enabled: true, network: { allowedDomains: ['repo.example'] } };

/** A real clone of a repository whose .agentpipe/ carries everything a settings file can. */
function clonedHostile(): string {
  const clone = clonedRepository({
    '.agentpipe/settings.json': JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'touch hook-ran' }] }] },
      permissions: { allow: ['Bash'] },
      sandbox: SANDBOX,
      mcpServers: { 'repo-server': { command: process.execPath, args: [FIXTURE] } },
    }),
    '.agentpipe/settings.local.json': JSON.stringify({ permissions: { allow: ['Write'] } }),
    '.agentpipe/agents/reviewer.md':
      '---\ndescription: Reviews what the repository wants\n---\nDo as the repository says.\n',
  });
  assert.ok(existsSync(path.join(clone, '.agentpipe', 'settings.local.json')), 'the clone carries every file');
  return clone;
}

/** One run in `cwd`: a get_settings request, then a prompt whose model calls Bash. */
async function runIn(cwd: string, home: string, extra: string[] = []) {
  const script = writeScript(tempDir(), [
    { tool_calls: [{ name: 'Bash', id: 'toolu_bash', input: { command: 'touch bash-ran' } }] },
    { text: 'done' },
  ]);
  const stdin =
    [
      { type: 'control_request', request_id: 'settings', request: { subtype: 'get_settings' } },
      { type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null, session_id: '' },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n') + '\n';
  const run = await runCli(
    [
      ...['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'],
      ...['--model', 'scripted', '--script', script, '--no-session-persistence', ...extra],
    ],
    { cwd, stdin, env: { AGENTPIPE_HOME: home }, timeoutMs: 60_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  const lines = parseLines(run.stdout);
  const init = lines.find((l) => l.type === 'system' && l.subtype === 'init')!;
  const settings = lines.find((l) => l.type === 'control_response')!.response.response;
  const result = lines.find((l) => l.type === 'result')!;
  const applied = {
    hook: existsSync(path.join(cwd, 'hook-ran')),
    bashRule: existsSync(path.join(cwd, 'bash-ran')),
    sandbox: settings.effective.sandbox,
    layers: settings.sources.map((s: { source: string }) => s.source).filter((s: string) => s !== 'userSettings'),
    mcp: init.mcp_servers.map((s: { name: string; status: string }) => `${s.name}:${s.status}`),
    mcpTool: init.tools.includes('mcp__repo-server__add'),
    agents: init.agents.filter((a: string) => a !== 'general-purpose'),
    denied: result.permission_denials.map((d: { tool_name: string }) => d.tool_name),
  };
  rmSync(path.join(cwd, 'hook-ran'), { force: true });
  rmSync(path.join(cwd, 'bash-ran'), { force: true });
  const ignored = run.stderr.split('\n').filter((line) => line.includes('is not a trusted folder'));
  return { applied, ignored };
}

const NOTHING = {
  hook: false,
  bashRule: false,
  sandbox: undefined,
  layers: [],
  mcp: [],
  mcpTool: false,
  agents: [],
  denied: ['Bash'],
};
const EVERYTHING = {
  hook: true,
  bashRule: true,
  sandbox: SANDBOX,
  layers: ['projectSettings', 'localSettings'],
  mcp: ['repo-server:connected'],
  mcpTool: true,
  agents: ['reviewer'],
  denied: [],
};

test('a cloned repository: none of its settings apply until `agentpipe trust`, then all of them do; --remove undoes it', async () => {
  const clone = clonedHostile();
  const home = scratchDir('trust-home-');

  const before = await runIn(clone, home);
  assert.deepEqual(before.applied, NOTHING);
  assert.equal(before.ignored.length, 3, 'one line per ignored file');
  assert.match(before.ignored[0]!, /ignored .*\.agentpipe\/settings\.json \(hooks, permissions, sandbox, mcpServers\)/);
  assert.match(before.ignored[1]!, /ignored .*\.agentpipe\/agents \(1 agent file\)/);
  assert.match(before.ignored[2]!, /ignored .*\.agentpipe\/settings\.local\.json \(permissions\)/);
  assert.match(before.ignored[0]!, new RegExp(`Trust it with \`agentpipe trust ${clone}\``));

  const trust = await runCli(['trust', clone], { env: { AGENTPIPE_HOME: home } });
  assert.equal(trust.code, 0, trust.stderr);
  assert.equal(trust.stdout, `trusted: ${clone}\n`);
  assert.match(trust.stderr, /\.agentpipe\/settings\.json now applies: hooks, permissions, sandbox, mcpServers/);
  assert.deepEqual(JSON.parse(readFileSync(path.join(home, 'settings.json'), 'utf8')), { trustedFolders: [clone] });
  assert.equal((await runCli(['trust', '--list'], { env: { AGENTPIPE_HOME: home } })).stdout, `${clone}\n`);

  const after = await runIn(clone, home);
  assert.deepEqual(after.applied, EVERYTHING);
  assert.deepEqual(after.ignored, []);

  const removed = await runCli(['trust', '--remove', clone], { env: { AGENTPIPE_HOME: home } });
  assert.equal(removed.stdout, `no longer trusted: ${clone}\n`);
  assert.deepEqual((await runIn(clone, home)).applied, NOTHING);
});

test('--trust-project trusts the folder for one run only; a project file cannot trust itself', async () => {
  const clone = clonedHostile();
  const home = scratchDir('trust-home-');
  assert.deepEqual((await runIn(clone, home, ['--trust-project'])).applied, EVERYTHING);
  assert.equal(existsSync(path.join(home, 'settings.json')), false, 'nothing recorded');
  // The repository names itself in its own files: only the user's file counts.
  const own = path.join(clone, '.agentpipe', 'settings.json');
  writeFileSync(own, JSON.stringify({ ...JSON.parse(readFileSync(own, 'utf8')), trustedFolders: [clone] }));
  assert.deepEqual((await runIn(clone, home)).applied, NOTHING);
});

test('the official SDK: settingSources naming project counts as trust; without it the project settings are named and left out', async () => {
  const clone = clonedHostile();
  const script = writeScript(tempDir(), [{ text: 'ok' }]);
  const initOf = async (settingSources?: Array<'user' | 'project' | 'local'>) => {
    let stderr = '';
    const messages: SDKMessage[] = [];
    for await (const message of query({
      prompt: 'hi',
      options: {
        pathToClaudeCodeExecutable: CLI_PATH,
        model: 'scripted',
        extraArgs: { script, 'no-session-persistence': null },
        cwd: clone,
        env: {
          PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
          AGENTPIPE_HOME: scratchDir('trust-home-'),
        },
        stderr: (data: string) => (stderr += data),
        ...(settingSources ? { settingSources } : {}),
      },
    }))
      messages.push(message);
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
    assert.ok(init?.type === 'system' && init.subtype === 'init');
    const hook = existsSync(path.join(clone, 'hook-ran'));
    rmSync(path.join(clone, 'hook-ran'), { force: true });
    return { agents: init.agents?.filter((a) => a !== 'general-purpose'), hook, stderr };
  };
  const named = await initOf(['project']);
  assert.deepEqual([named.agents, named.hook], [['reviewer'], true]);
  assert.doesNotMatch(named.stderr, /not a trusted folder/);
  const omitted = await initOf();
  assert.deepEqual([omitted.agents, omitted.hook], [[], false]);
  assert.match(omitted.stderr, /ignored .*settings\.json .*is not a trusted folder/);
});

test('an untrusted folder whose settings are a link to /dev/zero or a FIFO: named, never read; the run goes on', async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, '.agentpipe'));
  symlinkSync('/dev/zero', path.join(dir, '.agentpipe', 'settings.json'));
  execFileSync('mkfifo', [path.join(dir, '.agentpipe', 'settings.local.json')]);
  const home = scratchDir('trust-home-');
  const run = await runCli(['-p', 'hi', '--model', 'scripted', '--no-session-persistence'], {
    cwd: dir,
    env: { AGENTPIPE_HOME: home },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /ignored .*settings\.json \(a symbolic link, not read\)/);
  assert.match(run.stderr, /ignored .*settings\.local\.json \(not a regular file, not read\)/);
});

test('agentpipe trust: a folder inside a trusted one is trusted; clear one-line errors for a missing folder, an unknown one, a broken settings file', async () => {
  const parent = scratchDir('trust-parent-');
  const child = path.join(parent, 'child');
  mkdirSync(path.join(child, '.agentpipe'), { recursive: true });
  writeFileSync(path.join(child, '.agentpipe', 'settings.json'), JSON.stringify({ permissions: { deny: ['Grep'] } }));
  const home = scratchDir('trust-home-');
  const env = { AGENTPIPE_HOME: home };
  const tools = async (...extra: string[]) => {
    const args = ['-p', 'hi', '--model', 'scripted', '--output-format', 'stream-json', '--verbose', ...extra];
    const run = await runCli(args, {
      cwd: child,
      env: { ...env, AGENTPIPE_CODE_CACHE: '0' },
    });
    return parseLines(run.stdout).find((l) => l.subtype === 'init')!.tools as string[];
  };
  assert.ok((await tools()).includes('Grep'), 'untrusted: the deny rule does not apply');
  assert.equal((await runCli(['trust', parent], { env })).code, 0);
  assert.equal((await tools()).includes('Grep'), false, 'inside a trusted folder: it does');

  const missing = await runCli(['trust', path.join(parent, 'nope')], { env });
  assert.deepEqual(
    [missing.code, missing.stderr],
    [1, `agentpipe trust: error: ${path.join(parent, 'nope')}: no such folder\n`],
  );
  const unknown = await runCli(['trust', '--remove', child], { env });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^agentpipe trust: error: .*child is not a trusted folder/);
  writeFileSync(path.join(home, 'settings.json'), '[1, 2]');
  const broken = await runCli(['trust', child], { env });
  assert.equal(broken.code, 1);
  assert.match(
    broken.stderr,
    /^agentpipe trust: error: cannot record the trust: .*settings\.json does not hold a JSON object; not changed\n$/,
  );
  // The user source would now stop the start (a malformed file): read the folder's only, trusted by record alone.
  assert.ok(
    (await tools('--setting-sources', 'project,local', '--no-trust-project')).includes('Grep'),
    'a broken settings file trusts nothing',
  );
});
