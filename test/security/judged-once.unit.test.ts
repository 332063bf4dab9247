/**
 * Attacker rows: the path a file tool's call writes to (or Read reads) is resolved once. agentpipe records where the
 * target really is (judged-path.ts) and the tool refuses to use anything else; the permission check must judge that
 * recorded place, not resolve the path again. A folder swapped for a link between the record and the check (by a
 * background job of the model's) would otherwise have the check judge one file and the tool use another. The rows
 * play the job deterministically: record, swap, check.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { PermissionMode } from '../../src/messages/types.ts';
import { editTool } from '../../src/tools/builtin/edit.ts';
import { readTool } from '../../src/tools/builtin/read.ts';
import { writeTool } from '../../src/tools/builtin/write.ts';
import { judgeTarget } from '../../src/tools/judged-path.ts';
import { parseRules } from '../../src/tools/permission-rules.ts';
import { checkPermission } from '../../src/tools/permissions.ts';
import type { Tool } from '../../src/tools/types.ts';

interface Row {
  name: string;
  mode: PermissionMode;
  /** Where `work/d` leads when the target is recorded, and when the check runs (relative to the temp root). */
  recorded: string;
  checked: string;
  allow?: string[];
  deny?: string[];
  tool?: Tool;
  expect: 'ask' | 'deny' | 'allow';
}

const rows: Row[] = [
  {
    name: 'outside, then inside: acceptEdits',
    mode: 'acceptEdits',
    recorded: 'outside',
    checked: 'work/in',
    expect: 'ask',
  },
  {
    name: 'outside, then inside: an allow rule on the inside folder',
    mode: 'default',
    recorded: 'outside',
    checked: 'work/src',
    allow: ['Write(./src/**)'],
    expect: 'ask',
  },
  {
    name: '.git/hooks, then a plain folder: bypassPermissions',
    mode: 'bypassPermissions',
    recorded: 'work/.git/hooks',
    checked: 'work/in',
    expect: 'ask',
  },
  {
    name: 'a denied folder, then another: the deny rule',
    mode: 'acceptEdits',
    recorded: 'work/secret',
    checked: 'work/in',
    deny: ['Write(./secret/**)'],
    expect: 'deny',
  },
  {
    name: 'a Read-denied folder, then another: Edit asks',
    mode: 'acceptEdits',
    recorded: 'work/secret',
    checked: 'work/in',
    deny: ['Read(./secret/**)'],
    tool: editTool,
    expect: 'ask',
  },
  {
    name: 'outside, then inside: Read in the default mode',
    mode: 'default',
    recorded: 'outside',
    checked: 'work/in',
    tool: readTool,
    expect: 'ask',
  },
  {
    name: 'a Read-denied folder, then another: Read',
    mode: 'default',
    recorded: 'work/secret',
    checked: 'work/in',
    deny: ['Read(./secret/**)'],
    tool: readTool,
    expect: 'deny',
  },
  {
    name: 'inside, then outside: judged inside',
    mode: 'acceptEdits',
    recorded: 'work/in',
    checked: 'outside',
    expect: 'allow',
  },
];

for (const row of rows) {
  test(`a link swapped between the record and the check: ${row.name}`, async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'judged-once-'));
    try {
      const work = path.join(root, 'work');
      for (const dir of ['outside', 'work/in', 'work/src', 'work/secret', 'work/.git/hooks'])
        mkdirSync(path.join(root, dir), { recursive: true });
      const link = path.join(work, 'd');
      symlinkSync(path.join(root, row.recorded), link);
      const tool = row.tool ?? writeTool;
      const input = { file_path: 'd/f.txt', content: 'x', old_string: 'a', new_string: 'b' };
      const judged = judgeTarget(tool, input, work);
      assert.equal(judged?.real, path.join(root, row.recorded, 'f.txt'));
      symlinkSync(path.join(root, row.checked), `${link}.new`);
      renameSync(`${link}.new`, link);
      const verdict = await checkPermission({
        tool,
        input,
        mode: row.mode,
        allow: parseRules(row.allow ?? []),
        deny: parseRules(row.deny ?? []),
        cwd: work,
        judged: judged?.real,
      });
      assert.equal(verdict.behavior, row.expect, JSON.stringify(verdict));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}
