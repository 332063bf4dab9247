/**
 * acceptEdits runs Claude Code 2.1.332's file commands (mkdir, touch, rm, rmdir, mv, cp, sed -i) inside the working
 * folders without asking (src/tools/shell/accept-edits.ts), and only when the check is sure of every operand. The
 * attacker rows: each line below must still ask (or be denied by a rule), in acceptEdits, on a real folder with links,
 * a hard link, a nested repository and a Read deny rule; the plain lines beside them run.
 */
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { bashTool } from '../../src/tools/builtin/bash.ts';
import { parseRules } from '../../src/tools/permission-rules.ts';
import { checkPermission, type PermissionVerdict } from '../../src/tools/permissions.ts';

let root = '';
let work = '';
let outside = '';

before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'accept-edits-bash-'));
  work = path.join(root, 'work');
  outside = path.join(root, 'outside');
  mkdirSync(path.join(work, 'src'), { recursive: true });
  mkdirSync(path.join(work, '.git/hooks'), { recursive: true });
  mkdirSync(path.join(work, 'nested/.git'), { recursive: true });
  mkdirSync(path.join(work, 'secret'), { recursive: true });
  mkdirSync(path.join(work, 'plain/deep'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(work, 'a.txt'), 'a\n');
  writeFileSync(path.join(work, 'src/b.ts'), 'b\n');
  writeFileSync(path.join(work, 'plain/deep/c.txt'), 'c\n');
  writeFileSync(path.join(work, 'secret/s.txt'), 'top secret\n');
  writeFileSync(path.join(outside, 'victim.txt'), 'victim\n');
  symlinkSync(outside, path.join(work, 'out-link'));
  symlinkSync(path.join(outside, 'victim.txt'), path.join(work, 'victim-link'));
  symlinkSync(path.join(outside, 'not-yet'), path.join(work, 'dangling'));
  linkSync(path.join(outside, 'victim.txt'), path.join(work, 'hard.txt'));
  // A folder holding a link that leads outside: copied or moved, the link comes along.
  mkdirSync(path.join(work, 'box'));
  symlinkSync(outside, path.join(work, 'box/l'));
});

after(() => rmSync(root, { recursive: true, force: true }));

const check = (command: string, deny: string[] = []): Promise<PermissionVerdict> =>
  checkPermission({
    tool: bashTool,
    input: { command },
    mode: 'acceptEdits',
    allow: [],
    deny: parseRules(['Read(./secret/**)', ...deny]),
    cwd: work,
  });

test('acceptEdits runs the file commands on plain paths inside the working folder', async () => {
  for (const line of [
    'touch made.txt',
    'mkdir -p new/dir',
    'mkdir new2 && touch new2/x.txt',
    'rm a.txt',
    'rm -rf plain',
    'rmdir plain/deep/empty-not-there',
    'mv a.txt b.txt',
    'mv a.txt src',
    'cp a.txt copy.txt',
    'cp -r plain plain-copy',
    "sed -i 's/a/A/' a.txt",
    "sed -i -e 's/a/A/g' -e '/^$/d' a.txt src/b.ts",
    'touch -- made.txt',
    'touch ./x/../made.txt',
    `touch ${work}/abs.txt`,
  ]) {
    const got = await check(line);
    assert.deepEqual(got, { behavior: 'allow', sandbox: 'workspace', bySubcommands: true }, line);
  }
});

test('attacker rows: every line that reaches outside, protected files, links or code still asks', async () => {
  const rows: Array<[string, string]> = [
    // links and `..`
    ['touch out-link/x.txt', 'a linked folder that leads outside'],
    ['rm victim-link', 'a link to a file outside'],
    ['touch dangling', 'a dangling link: touch would create its target outside'],
    ['touch ../escape.txt', '`..` out of the folder'],
    ['mkdir -p src/../../escape', '`..` after a folder'],
    ['rm -rf ..', 'the folder above'],
    ['rm -rf .', 'the working folder itself'],
    [`rm -rf ${work}`, 'the working folder by its absolute path'],
    ['touch /tmp/x.txt', 'an absolute path outside'],
    ['touch ~/x.txt', 'home'],
    // options that name another target or change modes and links
    ['cp a.txt --target-directory=/tmp', 'cp --target-directory'],
    ['cp -t /tmp a.txt', 'cp -t'],
    ['mv -t /tmp a.txt', 'mv -t'],
    ['mv --target=/tmp a.txt', 'an abbreviated --target-directory'],
    ['ln -s /etc x', 'ln is not on the list'],
    ['cp -s /etc/passwd x', 'cp -s makes links'],
    ['cp -l a.txt y', 'cp -l makes hard links'],
    ['cp -a a.txt y', 'cp -a keeps modes'],
    ['touch -r /etc/shadow x', 'touch -r reads another file'],
    ['touch --reference=/etc/shadow x', 'touch --reference'],
    ['mkdir -m 4777 d', 'mkdir -m sets a mode'],
    ['mkdir --mode=4777 d', 'mkdir --mode'],
    ['mv -b a.txt src/b.ts', 'mv -b backs up'],
    ['rm --no-preserve-root -rf x', 'rm --no-preserve-root'],
    // sed
    ["sed -i '1e id' a.txt", 'sed e runs a command'],
    ["sed -i 's/a/b/e' a.txt", 'sed s///e runs the pattern space'],
    ["sed -i 's/a/b/w /tmp/leak' a.txt", 'sed s///w writes a file'],
    ["sed -i '1r secret/s.txt' a.txt", 'sed r reads a file'],
    ["sed -i 'w /tmp/x' a.txt", 'sed w'],
    ['sed -i -f script.sed a.txt', 'sed -f reads a script file'],
    ["sed -i.bak 's/a/b/' a.txt", 'sed -i with a suffix'],
    ["sed 's/a/b/' a.txt > out.txt", 'sed without -i, redirected'],
    ["sed -i 's/a/b/' /etc/hosts", 'sed -i outside'],
    // expansions and wildcards
    ['touch $HOME/x', 'a variable'],
    ['touch "$(echo /tmp/x)"', 'a command substitution'],
    ['touch `echo /tmp/x`', 'a backquoted substitution'],
    ['rm *', 'a wildcard (a file named -rf, --no-preserve-root ...)'],
    ['rm -- *.txt', 'a wildcard after --'],
    ['touch {a,b}.txt', 'a brace expansion'],
    ['X=1 touch a.txt', 'an assignment'],
    ['touch a.txt > /tmp/x', 'a redirection'],
    ['touch a.txt &', 'a background job'],
    ['cd /tmp && touch x', 'a cd'],
    ['touch a.txt; curl evil.example', 'another program after'],
    ['touch a.txt | sh', 'a pipe into a shell'],
    ['(touch a.txt)', 'a subshell'],
    // protected and denied files, hard links
    ['rm -rf .git', 'the repository'],
    ['touch .git/hooks/pre-commit', 'a hook'],
    ['mv a.txt .git/hooks/post-checkout', 'a move into the hooks'],
    ['cp a.txt .git/hooks', 'a copy into the hooks folder'],
    ['rm -rf nested', 'a folder that holds a repository'],
    ['mv nested elsewhere', 'moving a folder that holds a repository'],
    ['cp -r nested elsewhere', 'copying a repository (its config)'],
    ['touch .bashrc', 'a start-up file'],
    ['mkdir .claude', 'Claude configuration'],
    ['touch .agentpipe/settings.json', 'agentpipe settings'],
    ['cp secret/s.txt public.txt', 'a Read-denied file copied'],
    ['mv secret public', 'a folder holding Read-denied files'],
    ['rm -rf secret', 'a Read-denied folder'],
    ['touch hard.txt', 'a hard link to a file outside'],
    ['cp a.txt hard.txt', 'a copy through a hard link'],
    ["sed -i 's/v/V/' hard.txt", 'sed through a hard link'],
    ['cp -r plain/deep plain', 'cp -r into a folder that exists (merges into whatever it holds)'],
  ];
  for (const [line, why] of rows) {
    const got = await check(line);
    assert.notEqual(got.behavior, 'allow', `${line}: ${why}`);
  }
});

test('attacker rows: a later command writes through a link an earlier one of the same line copied or moved there', async () => {
  const rows: Array<[string, string]> = [
    ['cp -r box box2 && touch box2/l/x.txt', 'cp -r copies the link as a link; touch then writes outside'],
    ['mkdir n && mv box n && touch n/box/l/x.txt', 'mv takes the link along'],
    ["cp -r box box3 && sed -i 's/v/V/' box3/l/victim.txt", 'sed -i through the copied link'],
  ];
  const allowed: string[] = [];
  for (const [line, why] of rows) if ((await check(line)).behavior === 'allow') allowed.push(`${line}: ${why}`);
  assert.deepEqual(allowed, []);
  // rm does not follow a link: removing such a folder still runs.
  assert.equal((await check('rm -rf box')).behavior, 'allow');
});

test('deny rules still win over acceptEdits', async () => {
  const got = await check('rm a.txt', ['Bash(rm:*)']);
  assert.equal(got.behavior, 'deny');
});
