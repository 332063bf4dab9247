/**
 * Runs test/permissions/table.yaml: every row in process against the real tools, and the rows
 * marked `cli: true` through the real CLI on the scripted model, checking that a call that was
 * not allowed left every file (workspace, outside folder, home) as it was, that no row ever ran a
 * planted program (no file named PWNED) or wrote through a link to the outside file, and what an
 * allowed call printed (`output`) or must not print (`hidden`).
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { builtinTools } from '../../src/tools/builtin/index.ts';
import { checkPermission, parseRules } from '../../src/tools/permissions.ts';
import type { PermissionMode } from '../../src/messages/types.ts';
import { runScripted, toolResults } from '../helpers/agent-run.ts';
import { baseWorkspace, OUTSIDE_TEXT, SETUPS, type Workspace } from './fixtures.ts';

interface Row {
  cmd?: string;
  tool?: string;
  input?: Record<string, unknown>;
  mode?: PermissionMode;
  allow?: string[];
  deny?: string[];
  expect: 'allow' | 'ask' | 'deny';
  cli?: boolean;
  setup?: string;
  /** Extra environment of the run. */
  env?: Record<string, string>;
  /** Text an allowed call's result must hold, and text it must not. */
  output?: string;
  hidden?: string;
  why?: string;
}

/**
 * Arguments every CLI run of the table adds: the check alone, with no OS sandbox under it (which would hide a
 * check that let a writing command run). The same rows run again with the sandbox required, below.
 */
export const TABLE_CLI_ARGS: readonly string[] = ['--sandbox', 'off'];
/** The same runs on the two walls: the sandbox must not change a decision or break a command the check allows. */
const SANDBOXED_ARGS: readonly string[] = ['--sandbox', 'required'];

const rows = parse(
  readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'table.yaml'), 'utf8'),
) as Row[];
const root = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-perm-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A fresh base workspace under `name`, with `setup` applied. */
function workspace(name: string, setup?: string): Workspace {
  const base = path.join(root, name);
  mkdirSync(base, { recursive: true });
  const ws = baseWorkspace(base);
  if (setup) {
    assert.ok(Object.hasOwn(SETUPS, setup), `no setup named ${setup}`);
    SETUPS[setup]!(ws);
  }
  return ws;
}

const label = (row: Row) =>
  `${row.setup ? `[${row.setup}] ` : ''}${row.mode ?? 'default'} ` +
  `${row.allow ? `allow ${row.allow.join(' ')} ` : ''}${row.deny ? `deny ${row.deny.join(' ')} ` : ''}` +
  `${row.cmd !== undefined ? `Bash ${JSON.stringify(row.cmd)}` : `${row.tool} ${JSON.stringify(row.input)}`} → ` +
  `${row.expect}`;

const call = (row: Row) =>
  row.cmd !== undefined ? { tool: 'Bash', input: { command: row.cmd } } : { tool: row.tool!, input: row.input! };

/** Runs `body` with `env` added to process.env (for checks that read the environment, as printenv's does). */
async function withEnv<T>(env: Record<string, string> | undefined, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env ?? {}).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await body();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

test('every row of the permission table gets its decision (in process, real tools)', async () => {
  assert.ok(rows.length >= 400, `the table has ${rows.length} rows`);
  const spaces = new Map<string, Workspace>();
  const previousHome = process.env.HOME;
  const tools = new Map(builtinTools().map((t) => [t.name, t]));
  const wrong: string[] = [];
  try {
    for (const row of rows) {
      const key = row.setup ?? '';
      if (!spaces.has(key)) spaces.set(key, workspace(`in-process-${key || 'base'}`, row.setup));
      const ws = spaces.get(key)!;
      process.env.HOME = ws.home;
      const { tool, input } = call(row);
      const verdict = await withEnv(row.env, () =>
        checkPermission({
          tool: tools.get(tool)!,
          input,
          mode: row.mode ?? 'default',
          allow: parseRules(row.allow),
          deny: parseRules(row.deny),
          cwd: ws.cwd,
        }),
      );
      if (verdict.behavior !== row.expect)
        wrong.push(`${label(row)}: got ${verdict.behavior}${'reason' in verdict ? ` (${verdict.reason})` : ''}`);
    }
  } finally {
    process.env.HOME = previousHome;
  }
  assert.deepEqual(wrong, []);
});

/** Every path under `dir` with a fingerprint (type; size and mtime for files and links). */
function snapshot(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const stat = lstatSync(file);
    // A folder's own mtime moves when the run writes and removes its script file; its entries tell.
    out.set(file, entry.isDirectory() ? 'd' : `${entry.isSymbolicLink() ? 'l' : 'f'}:${stat.size}:${stat.mtimeMs}`);
    if (entry.isDirectory()) snapshot(file, out);
  }
  return out;
}

/** The one way the table runs the CLI: the row's call on the scripted model, with the row's mode and rules. */
async function runRow(row: Row, ws: Workspace, walls: readonly string[]) {
  const { tool, input } = call(row);
  const args = [...walls, '--permission-mode', row.mode ?? 'default'];
  if (row.allow) args.push('--allowedTools', ...row.allow);
  if (row.deny) args.push('--disallowedTools', ...row.deny);
  const run = await runScripted(
    ws.cwd,
    [{ tool_calls: [{ name: tool, id: 'toolu_row', input }] }, { text: 'done' }],
    args,
    { env: { HOME: ws.home, ...row.env } },
  );
  // The script file is the run's own; leave it out of the comparison.
  rmSync(path.join(ws.cwd, 'script.json'), { force: true });
  return run;
}

/** What went wrong with one CLI row, if anything. */
async function checkCliRow(row: Row, ws: Workspace, walls = TABLE_CLI_ARGS): Promise<string[]> {
  const before = snapshot(path.dirname(ws.cwd));
  const run = await runRow(row, ws, walls);
  const result = run.lines.at(-1);
  const denied = (result?.permission_denials ?? []).some((d: { tool_use_id: string }) => d.tool_use_id === 'toolu_row');
  const answer = toolResults(run.lines).get('toolu_row');
  const ran = answer !== undefined && !denied;
  const text = JSON.stringify(answer?.content ?? '');
  const problems: string[] = [];
  if (result?.type !== 'result') return [`no result (${run.stderr.slice(0, 300)})`];
  if (ran !== (row.expect === 'allow')) problems.push(`the call ${ran ? 'ran' : 'did not run'}`);
  if (!ran) {
    const now = snapshot(path.dirname(ws.cwd));
    const changed = [...new Set([...before.keys(), ...now.keys()])].filter((f) => before.get(f) !== now.get(f));
    if (changed.length) problems.push(`files changed although the call did not run: ${changed.join(', ')}`);
  }
  if (row.output !== undefined && !text.includes(row.output)) problems.push(`the result lacks ${row.output}: ${text}`);
  if (row.hidden !== undefined && text.includes(row.hidden)) problems.push(`the result shows ${row.hidden}: ${text}`);
  const planted = [...snapshot(path.dirname(ws.cwd)).keys()].filter((f) => path.basename(f) === 'PWNED');
  if (planted.length) problems.push(`a planted program ran: ${planted.join(', ')}`);
  if (readFileSync(path.join(ws.outside, 'f.txt'), 'utf8') !== OUTSIDE_TEXT) problems.push('outside/f.txt changed');
  return problems;
}

const cliRows = rows.filter((r) => r.cli);

test(`the CLI decides the ${cliRows.length} cli rows the same way, and a call it did not allow changes no file`, async () => {
  assert.ok(cliRows.length >= 150, `${cliRows.length} rows run through the CLI`);
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cliRows.length; i = next++) {
      const row = cliRows[i]!;
      const ws = workspace(`cli-${i}`, row.setup);
      for (const problem of await checkCliRow(row, ws)) failures.push(`${label(row)}: ${problem}`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  assert.deepEqual(failures, []);
  assert.ok(!existsSync(path.join(root, 'PWNED')));
});

test(`with the OS sandbox required, the ${cliRows.length} cli rows get the same decisions and answers`, async () => {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cliRows.length; i = next++) {
      const row = cliRows[i]!;
      const ws = workspace(`sandboxed-${i}`, row.setup);
      for (const problem of await checkCliRow(row, ws, SANDBOXED_ARGS)) failures.push(`${label(row)}: ${problem}`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  assert.deepEqual(failures, []);
});
