/** CLI scenarios: each built-in tool, its results and its error paths. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../../helpers/cli.ts';
import { answer, calls } from '../replies.ts';
import type { CliScenario } from '../scenario.ts';

const NOTEBOOK = readFileSync(path.join(ROOT, 'test/fixtures/notebooks/outputs.ipynb'), 'utf8');
const BYPASS = ['--permission-mode', 'bypassPermissions'];
const EDITS = ['--permission-mode', 'acceptEdits'];

/** A scenario where the model makes `list` of calls, one per turn, then answers `done`. */
function oneByOne(
  name: string,
  files: Record<string, string>,
  list: (cwd: string) => Array<[string, Record<string, unknown>]>,
  args: string[] = [],
): CliScenario {
  return {
    kind: 'cli',
    area: 'tools',
    name: `tools/${name}`,
    files,
    replies: (cwd) => [...list(cwd).map(([tool, input], i) => calls([`toolu_${i}`, tool, input])), answer('done')],
    args: ['go', ...args],
  };
}

const TEXT = { 'a.txt': 'alpha\nbeta\ngamma\n' };
/**
 * Claude Code 2.1.332 offers Glob and Grep only when --allowedTools names them (otherwise "No such tool available", a
 * deliberate difference: docs/compat.md); the scenarios name them, to compare what the tools answer.
 */
const SEARCH = ['--allowedTools', 'Glob', 'Grep'];
const TREE = { 'a.txt': 'alpha\nbeta\n', 'src/b.ts': 'const beta = 1;\nconst Beta = 2;\n', 'src/c.md': '# beta\n' };

export const toolScenarios: CliScenario[] = [
  oneByOne('read-text', TEXT, (cwd) => [['Read', { file_path: `${cwd}/a.txt` }]]),
  oneByOne('read-offset-limit', TEXT, (cwd) => [['Read', { file_path: `${cwd}/a.txt`, offset: 2, limit: 1 }]]),
  oneByOne('read-missing', {}, (cwd) => [['Read', { file_path: `${cwd}/missing.txt` }]]),
  oneByOne('read-directory', { 'd/x.txt': 'x' }, (cwd) => [['Read', { file_path: `${cwd}/d` }]]),
  oneByOne('read-empty-file', { 'e.txt': '' }, (cwd) => [['Read', { file_path: `${cwd}/e.txt` }]]),
  oneByOne('read-offset-past-end', TEXT, (cwd) => [['Read', { file_path: `${cwd}/a.txt`, offset: 50 }]]),
  oneByOne('read-notebook', { 'n.ipynb': NOTEBOOK }, (cwd) => [['Read', { file_path: `${cwd}/n.ipynb` }]]),
  oneByOne('read-relative-path', TEXT, () => [['Read', { file_path: 'a.txt' }]]),
  oneByOne('write-new', {}, (cwd) => [['Write', { file_path: `${cwd}/new.txt`, content: 'fresh\n' }]], EDITS),
  oneByOne('write-unread-existing', TEXT, (cwd) => [['Write', { file_path: `${cwd}/a.txt`, content: 'x\n' }]], EDITS),
  oneByOne(
    'write-after-read',
    TEXT,
    (cwd) => [
      ['Read', { file_path: `${cwd}/a.txt` }],
      ['Write', { file_path: `${cwd}/a.txt`, content: 'replaced\n' }],
    ],
    EDITS,
  ),
  oneByOne(
    'write-new-folder',
    {},
    (cwd) => [['Write', { file_path: `${cwd}/deep/er/new.txt`, content: 'n\n' }]],
    EDITS,
  ),
  oneByOne(
    'edit-after-read',
    TEXT,
    (cwd) => [
      ['Read', { file_path: `${cwd}/a.txt` }],
      ['Edit', { file_path: `${cwd}/a.txt`, old_string: 'beta', new_string: 'BETA' }],
    ],
    EDITS,
  ),
  oneByOne(
    'edit-unread',
    TEXT,
    (cwd) => [['Edit', { file_path: `${cwd}/a.txt`, old_string: 'beta', new_string: 'BETA' }]],
    EDITS,
  ),
  oneByOne(
    'edit-not-found',
    TEXT,
    (cwd) => [
      ['Read', { file_path: `${cwd}/a.txt` }],
      ['Edit', { file_path: `${cwd}/a.txt`, old_string: 'delta', new_string: 'x' }],
    ],
    EDITS,
  ),
  oneByOne(
    'edit-not-unique',
    { 'r.txt': 'x\nx\n' },
    (cwd) => [
      ['Read', { file_path: `${cwd}/r.txt` }],
      ['Edit', { file_path: `${cwd}/r.txt`, old_string: 'x', new_string: 'y' }],
    ],
    EDITS,
  ),
  oneByOne(
    'edit-replace-all',
    { 'r.txt': 'x\nx\n' },
    (cwd) => [
      ['Read', { file_path: `${cwd}/r.txt` }],
      ['Edit', { file_path: `${cwd}/r.txt`, old_string: 'x', new_string: 'y', replace_all: true }],
    ],
    EDITS,
  ),
  oneByOne(
    'edit-same-strings',
    TEXT,
    (cwd) => [
      ['Read', { file_path: `${cwd}/a.txt` }],
      ['Edit', { file_path: `${cwd}/a.txt`, old_string: 'beta', new_string: 'beta' }],
    ],
    EDITS,
  ),
  oneByOne(
    'edit-missing-file',
    {},
    (cwd) => [['Edit', { file_path: `${cwd}/nope.txt`, old_string: 'a', new_string: 'b' }]],
    EDITS,
  ),
  oneByOne('bash-output', {}, () => [['Bash', { command: 'echo out; echo err >&2' }]], BYPASS),
  oneByOne('bash-no-output', {}, () => [['Bash', { command: 'true' }]], BYPASS),
  oneByOne('bash-exit-code', {}, () => [['Bash', { command: 'echo partial; exit 3' }]], BYPASS),
  oneByOne('bash-writes-file', {}, () => [['Bash', { command: 'echo made > made.txt' }]], BYPASS),
  // `rg` in Bash on a machine without a system ripgrep: Claude Code's own ripgrep answers.
  oneByOne('bash-rg', { 'notes.txt': 'hello\nbye\n' }, () => [['Bash', { command: 'rg hello notes.txt' }]], BYPASS),
  oneByOne('bash-timeout', {}, () => [['Bash', { command: 'sleep 30', timeout: 300 }]], BYPASS),
  oneByOne(
    'bash-cd-stays',
    { 'd/x.txt': 'x' },
    () => [
      ['Bash', { command: 'cd d && pwd' }],
      ['Bash', { command: 'pwd' }],
    ],
    BYPASS,
  ),
  // A `cd` out of the working folders does not stay: the shell goes back, with Claude Code's note.
  oneByOne(
    'bash-cd-out-resets',
    {},
    () => [
      ['Bash', { command: 'cd / && pwd' }],
      ['Bash', { command: 'pwd' }],
    ],
    BYPASS,
  ),
  // A `cd` in a subshell, or a failing one, leaves the shell where it was (the failing cd's complaint is silenced:
  // the order of stderr among stdout is not this scenario's subject).
  oneByOne(
    'bash-cd-subshell',
    { 'd/x.txt': 'x' },
    () => [
      ['Bash', { command: '(cd d && ls); cd nope 2>/dev/null; pwd' }],
      ['Bash', { command: 'cd d; pwd' }],
      ['Bash', { command: 'ls' }],
    ],
    BYPASS,
  ),
  oneByOne('glob-pattern', TREE, () => [['Glob', { pattern: '**/*.ts' }]], SEARCH),
  oneByOne('glob-no-match', TREE, () => [['Glob', { pattern: '**/*.py' }]], SEARCH),
  oneByOne('glob-in-path', TREE, (cwd) => [['Glob', { pattern: '*', path: `${cwd}/src` }]], SEARCH),
  // Grep lists files newest first: the times are set, not left to how fast the files were written.
  {
    ...oneByOne('grep-files', TREE, () => [['Grep', { pattern: 'beta' }]], SEARCH),
    mtimes: { 'a.txt': 1_700_000_300, 'src/b.ts': 1_700_000_100, 'src/c.md': 1_700_000_200 },
  },
  oneByOne('grep-content', TREE, () => [['Grep', { pattern: 'beta', output_mode: 'content' }]], SEARCH),
  oneByOne('grep-count', TREE, () => [['Grep', { pattern: 'beta', output_mode: 'count' }]], SEARCH),
  oneByOne('grep-no-match', TREE, () => [['Grep', { pattern: 'zeta' }]], SEARCH),
  oneByOne('grep-ignore-case', TREE, () => [['Grep', { pattern: 'BETA', '-i': true, output_mode: 'content' }]], SEARCH),
  oneByOne('grep-glob-filter', TREE, () => [['Grep', { pattern: 'beta', glob: '*.md' }]], SEARCH),
  oneByOne('grep-bad-regex', TREE, () => [['Grep', { pattern: '(unclosed' }]], SEARCH),
  oneByOne(
    'notebook-edit',
    { 'n.ipynb': NOTEBOOK },
    (cwd) => [
      ['Read', { file_path: `${cwd}/n.ipynb` }],
      ['NotebookEdit', { notebook_path: `${cwd}/n.ipynb`, cell_id: 'c1', new_source: 'print(2)' }],
    ],
    EDITS,
  ),
  oneByOne('todowrite', {}, () => [
    ['TodoWrite', { todos: [{ content: 'x', status: 'pending', activeForm: 'Xing' }] }],
  ]),
  // The task-list tools of 2.1.332 (TodoWrite's successors): create, list, get, update, dependencies both ways,
  // metadata merged, an unknown id, delete (its number is not given again, its dependencies go with it).
  oneByOne('tasks', {}, () => [
    ['TaskCreate', { subject: 'Write tests', description: 'Write the unit tests', activeForm: 'Writing tests' }],
    ['TaskCreate', { subject: 'Ship', description: 'Ship it' }],
    ['TaskCreate', { subject: 'Review', description: 'Review it', metadata: { a: 1 } }],
    ['TaskList', {}],
    ['TaskUpdate', { taskId: '1', status: 'in_progress' }],
    ['TaskUpdate', { taskId: '2', addBlockedBy: ['1'], owner: 'me', metadata: { k: 'v' } }],
    ['TaskUpdate', { taskId: '3', addBlocks: ['1'], subject: 'Review!', metadata: { a: null, b: 2 } }],
    ['TaskGet', { taskId: '1' }],
    ['TaskList', {}],
    ['TaskGet', { taskId: '9' }],
    ['TaskUpdate', { taskId: '7', status: 'completed' }],
    ['TaskUpdate', { taskId: '3', status: 'completed' }],
    ['TaskUpdate', { taskId: '2', status: 'deleted' }],
    ['TaskCreate', { subject: 'Again', description: 'after delete' }],
    ['TaskGet', { taskId: '1' }],
    ['TaskList', {}],
  ]),
  oneByOne('tasks-empty-list', {}, () => [['TaskList', {}]]),
  oneByOne('unknown-tool', {}, () => [['NoSuchTool', { x: 1 }]]),
  oneByOne('invalid-input-missing', {}, () => [['Read', {}]]),
  oneByOne('invalid-input-type', {}, () => [['Read', { file_path: 5 }]]),
  {
    kind: 'cli',
    area: 'tools',
    name: 'tools/parallel-reads',
    files: TEXT,
    replies: (cwd) => [
      calls(
        ['toolu_a', 'Read', { file_path: `${cwd}/a.txt` }],
        ['toolu_b', 'Read', { file_path: `${cwd}/a.txt`, limit: 1 }],
      ),
      answer('done'),
    ],
    args: ['go'],
  },
];
