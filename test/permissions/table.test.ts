/**
 * Runs test/permissions/table.yaml: every row in process against the real tools, and the rows
 * marked `cli: true` through the real CLI on the scripted model, checking that a call that was
 * not allowed left every file (workspace, outside folder, home) as it was.
 */
import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  lstatSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { builtinTools } from '../../src/tools/builtin/index.ts';
import { checkPermission, parseRules } from '../../src/tools/permissions.ts';
import type { PermissionMode } from '../../src/messages/types.ts';
import { runScripted, toolResults } from '../helpers/agent-run.ts';

interface Row {
  cmd?: string;
  tool?: string;
  input?: Record<string, unknown>;
  mode?: PermissionMode;
  allow?: string[];
  deny?: string[];
  expect: 'allow' | 'ask' | 'deny';
  cli?: boolean;
  why?: string;
}

const rows = parse(
  readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'table.yaml'), 'utf8'),
) as Row[];
const root = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-perm-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A workspace as the table's header describes it, with its own outside folder and home. */
function workspace(name: string): { cwd: string; outside: string; home: string } {
  const base = path.join(root, name);
  const cwd = path.join(base, 'work');
  const outside = path.join(base, 'outside');
  const home = path.join(base, 'home');
  for (const dir of [path.join(cwd, 'secret'), path.join(cwd, 'sub'), outside, home])
    mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(cwd, 'a.txt'), 'b\na\na\n');
  writeFileSync(path.join(cwd, '.env'), 'SECRET=hunter2\n');
  writeFileSync(path.join(cwd, 'secret/a'), 'top secret\n');
  writeFileSync(path.join(outside, 'f.txt'), 'outside\n');
  symlinkSync(path.join(cwd, 'secret'), path.join(cwd, 'link-secret'));
  symlinkSync(path.join(cwd, '.env'), path.join(cwd, 'link-env'));
  symlinkSync(outside, path.join(cwd, 'link-out'));
  symlinkSync(path.join(outside, 'f.txt'), path.join(cwd, 'link-out-file'));
  return { cwd, outside, home };
}

const label = (row: Row) =>
  `${row.mode ?? 'default'} ` +
  `${row.allow ? `allow ${row.allow.join(' ')} ` : ''}${row.deny ? `deny ${row.deny.join(' ')} ` : ''}` +
  `${row.cmd !== undefined ? `Bash ${JSON.stringify(row.cmd)}` : `${row.tool} ${JSON.stringify(row.input)}`} → ` +
  `${row.expect}`;

const call = (row: Row) =>
  row.cmd !== undefined ? { tool: 'Bash', input: { command: row.cmd } } : { tool: row.tool!, input: row.input! };

test('every row of the permission table gets its decision (in process, real tools)', async () => {
  assert.ok(rows.length >= 200, `the table has ${rows.length} rows`);
  const ws = workspace('in-process');
  const previousHome = process.env.HOME;
  process.env.HOME = ws.home;
  const tools = new Map(builtinTools().map((t) => [t.name, t]));
  const wrong: string[] = [];
  try {
    for (const row of rows) {
      const { tool, input } = call(row);
      const verdict = await checkPermission({
        tool: tools.get(tool)!,
        input,
        mode: row.mode ?? 'default',
        allow: parseRules(row.allow),
        deny: parseRules(row.deny),
        cwd: ws.cwd,
      });
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

const cliRows = rows.filter((r) => r.cli);

test(`the CLI decides the ${cliRows.length} cli rows the same way, and a call it did not allow changes no file`, async () => {
  assert.ok(cliRows.length >= 40, `${cliRows.length} rows run through the CLI`);
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cliRows.length; i = next++) {
      const row = cliRows[i]!;
      const ws = workspace(`cli-${i}`);
      const before = snapshot(path.dirname(ws.cwd));
      const { tool, input } = call(row);
      const args = ['--permission-mode', row.mode ?? 'default'];
      if (row.allow) args.push('--allowedTools', ...row.allow);
      if (row.deny) args.push('--disallowedTools', ...row.deny);
      const run = await runScripted(
        ws.cwd,
        [{ tool_calls: [{ name: tool, id: 'toolu_row', input }] }, { text: 'done' }],
        args,
        { env: { HOME: ws.home } },
      );
      // The script file is the run's own; leave it out of the comparison.
      rmSync(path.join(ws.cwd, 'script.json'), { force: true });
      const result = run.lines.at(-1);
      const denied = (result?.permission_denials ?? []).some(
        (d: { tool_use_id: string }) => d.tool_use_id === 'toolu_row',
      );
      const ran = toolResults(run.lines).has('toolu_row') && !denied;
      if (result?.type !== 'result') failures.push(`${label(row)}: no result (${run.stderr.slice(0, 300)})`);
      else if (ran !== (row.expect === 'allow'))
        failures.push(`${label(row)}: the call ${ran ? 'ran' : 'did not run'}`);
      else if (!ran) {
        const now = snapshot(path.dirname(ws.cwd));
        const changed = [...new Set([...before.keys(), ...now.keys()])].filter((f) => before.get(f) !== now.get(f));
        if (changed.length)
          failures.push(`${label(row)}: files changed although the call did not run: ${changed.join(', ')}`);
      }
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  assert.deepEqual(failures, []);
});
