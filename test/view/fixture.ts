/**
 * A recorded session for the viewer tests, made by the real CLI on the scripted model: text,
 * thinking, every tool kind the built-ins have (read, search, execute, edit, think) plus an
 * unknown one (fetch), an Edit diff, a Write, an image (Read of a PNG), a subagent (--agents),
 * a TodoWrite plan, a denial (--disallowedTools), a failing command, a hook (--include-hook-events), and an error
 * (the second prompt's model request fails).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

export const PNG_BASE64 = [
  'iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAADnUlEQVR4nA3MEQJEIQBAwc95nOdxnsd5nOdxnsd5+vI8zjvA7hxg',
  'vu9DfMgP9aE/zIf9cB/+I3zEj/SRP8pH/Wgf/WN8zI/1sT/Ox/14H98nEAIpUAItMAIrcAIvCIIoSIIsKIIqaIIuGIIpWIItOIIr',
  'eOIfSYRESpRES4zESpzES4IkSpIkS4qkSpqkS4ZkSpZkS47kSp78RwqhkAql0AqjsAqn8IqgiIqkyIqiqIqm6IqhmIql2IqjuIqn',
  '/pFGaKRGabTGaKzGabwmaKImabKmaKqmabpmaKZmabbmaK7m6X9kEAZpUAZtMAZrcAZvCIZoSIZsKIZqaIZuGIZpWIZtOIZreOYf',
  'WYRFWpRFW4zFWpzFW4IlWpIlW4qlWpqlW4ZlWpZlW47lWp79Rw7hkA7l0A7jsA7n8I7giI7kyI7iqI7m6I7hmI7l2I7juI7n/pFH',
  'eKRHebTHeKzHebwneKInebKneKqnebpneKZnebbneK7n+X8UEAEZUAEdMAEbcAEfCIEYSIEcKIEaaIEeGIEZWIEdOIEbeOEfRURE',
  'RlRER0zERlzER0IkRlIkR0qkRlqkR0ZkRlZkR07kRl78RwmRkAmV0AmTsAmX8ImQiImUyImSqImW6ImRmImV2ImTuImX/lFGZGRG',
  'ZXTGZGzGZXwmZGImZXKmZGqmZXpmZGZmZXbmZG7m5X9UEAVZUAVdMAVbcAVfCIVYSIVcKIVaaIVeGIVZWIVdOIVbeOUfVURFVlRF',
  'V0zFVlzFV0IlVlIlV0qlVlqlV0ZlVlZlV07lVl79Rw3RkA3V0A3TsA3X8I3QiI3UyI3SqI3W6I3RmI3V2I3TuI3X/lFHdGRHdXTH',
  'dGzHdXwndGIndXKndGqndXpndGZndXbndG7n9X80EAM5UAM9MAM7cAM/CIM4SIM8KIM6aIM+GIM5WIM9OIM7eOMfTcRETtRET8zE',
  'TtzET8IkTtIkT8qkTtqkT8ZkTtZkT87kTt78RwuxkAu10AuzsAu38IuwiIu0yIuyqIu26IuxmIu12IuzuIu3/tFGbORGbfTGbOzG',
  'bfwmbOImbfKmbOqmbfpmbOZmbfbmbO7m7X90EAd5UAd9MAd7cAd/CId4SId8KId6aId+GId5WId9OId7eOcfXcRFXtRFX8zFXtzF',
  'X8IlXtIlX8qlXtqlX8ZlXtZlX87lXt79Rw/xkA/10A/zsA/38I/wiI/0yI/yqI/26I/xmI/12I/zuI/3+AGthuYO0Bfe4AAAAABJ',
  'RU5ErkJggg==',
].join('');

const NOTES = '# Notes\n\nThe viewer shows a session.\nTODO: make it pretty\n';
const plan = (statuses: string[]) => ({
  todos: ['Look around the project', 'Fix the notes', 'Review the change'].map((content, i) => ({
    content,
    activeForm: content,
    status: statuses[i],
  })),
});
const FINAL = [
  '## Done',
  '',
  'I fixed **the notes**, added `hello.py` and had the change reviewed:',
  '',
  '- the TODO line is gone',
  '- a subagent checked the edit',
  '',
  '```python',
  'def greet(name: str) -> str:',
  '    return f"Hello, {name}!"',
  '```',
].join('\n');

export const TURNS = [
  {
    thinking: 'The user wants the notes fixed. I should read them first and make a plan.',
    text: 'Let me look at the project first.',
    tool_calls: [
      { name: 'TodoWrite', id: 'toolu_plan1', input: plan(['in_progress', 'pending', 'pending']) },
      { name: 'Read', id: 'toolu_read', input: { file_path: 'notes.md' } },
      { name: 'Glob', id: 'toolu_glob', input: { pattern: '*.md' } },
      { name: 'Grep', id: 'toolu_grep', input: { pattern: 'TODO', path: '.' } },
    ],
    usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 300, cache_creation_input_tokens: 50 },
  },
  {
    text: 'Now the logo, and a quick command.',
    tool_calls: [
      { name: 'Read', id: 'toolu_png', input: { file_path: 'logo.png' } },
      { name: 'Bash', id: 'toolu_echo', input: { command: 'echo hello from bash', description: 'Say hello' } },
    ],
    usage: { input_tokens: 1500, output_tokens: 40 },
  },
  {
    text: 'Fixing the notes.',
    tool_calls: [
      {
        name: 'Edit',
        id: 'toolu_edit',
        input: {
          file_path: 'notes.md',
          old_string: 'TODO: make it pretty',
          new_string: 'It is pretty now.\nIt has dark and light themes.',
        },
      },
      {
        name: 'Write',
        id: 'toolu_write',
        input: { file_path: 'hello.py', content: 'def greet(name):\n    return f"Hello, {name}!"\n' },
      },
      { name: 'Bash', id: 'toolu_rm', input: { command: 'rm -f notes.md.bak' } },
    ],
    usage: { input_tokens: 1700, output_tokens: 120 },
  },
  {
    tool_calls: [
      {
        name: 'Task',
        id: 'toolu_task',
        input: { description: 'Review the edit', prompt: 'Review notes.md', subagent_type: 'reviewer' },
      },
    ],
    usage: { input_tokens: 1900, output_tokens: 30 },
  },
  {
    text: 'Reading the file under review.',
    tool_calls: [{ name: 'Read', id: 'toolu_subread', input: { file_path: 'notes.md' } }],
    usage: { input_tokens: 300, output_tokens: 20 },
  },
  { text: 'The edit looks right: the TODO is resolved.', usage: { input_tokens: 400, output_tokens: 15 } },
  {
    tool_calls: [
      { name: 'Bash', id: 'toolu_fail', input: { command: 'ls no-such-dir-for-the-viewer' } },
      { name: 'WebFetch', id: 'toolu_fetch', input: { url: 'https://example.com/docs', prompt: 'summarize' } },
      { name: 'TodoWrite', id: 'toolu_plan2', input: plan(['completed', 'completed', 'in_progress']) },
    ],
    usage: { input_tokens: 2100, output_tokens: 60 },
  },
  { text: FINAL, usage: { input_tokens: 2300, output_tokens: 90 } },
  { error: { status: 400, message: 'invalid_request_error: the scripted model refuses this one' } },
];

export interface RecordedSession {
  dir: string;
  file: string;
  transcript: string;
  sessionId: string;
  stdout: string;
}

/** The transcript of a session under $AGENTPIPE_HOME/projects/<folder>/<id>.jsonl. */
function findTranscript(sessionId: string): string {
  const home = process.env.AGENTPIPE_HOME!;
  const found = readdirSync(home, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith(`${sessionId}.jsonl`));
  if (!found) throw new Error(`no transcript of ${sessionId} under ${home}`);
  return path.join(home, found);
}

/**
 * Runs the session (two prompts over stream-json input); `file` is its stdout saved with a
 * non-JSON line in front, `transcript` the session's own transcript (with the prompts).
 */
export async function recordSession(): Promise<RecordedSession> {
  const dir = tempDir({ 'notes.md': NOTES });
  writeFileSync(path.join(dir, 'logo.png'), Buffer.from(PNG_BASE64, 'base64'));
  const script = writeScript(dir, TURNS);
  const prompt = (text: string) =>
    JSON.stringify({
      type: 'user',
      session_id: '',
      parent_tool_use_id: null,
      message: { role: 'user', content: text },
    });
  const settings = {
    hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'echo formatted notes.md' }] }] },
  };
  const run = await runCli(
    [
      ...scriptedStreamArgs(script),
      '--input-format',
      'stream-json',
      '--permission-mode',
      'acceptEdits',
      '--disallowedTools',
      'Bash(rm:*)',
      '--agents',
      JSON.stringify({ reviewer: { description: 'Reviews code', prompt: 'You review changes.' } }),
      '--settings',
      JSON.stringify(settings),
      // The view shows the hook's notice from its system/hook_response, only in the stream with this flag.
      '--include-hook-events',
    ],
    {
      cwd: dir,
      stdin: `${prompt('Please fix the TODO in notes.md')}\n${prompt('One more thing')}\n`,
      timeoutMs: 30_000,
    },
  );
  if (!run.stdout.includes('"type":"result"')) throw new Error(`the recorded session did not run: ${run.stderr}`);
  const file = path.join(dir, 'session.jsonl');
  writeFileSync(file, `agentpipe: a log line that is not JSON\n${run.stdout}`);
  const sessionId = String(JSON.parse(run.stdout.split('\n')[0]).session_id);
  return { dir, file, transcript: findTranscript(sessionId), sessionId, stdout: run.stdout };
}
