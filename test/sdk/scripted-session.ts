/**
 * The one scripted session every face is proven on: text, thinking, a TodoWrite plan, several
 * tools (Read, Glob, Edit, Bash), a denied Write, a failing Read, a subagent (Task), and a
 * second prompt that ends in a model error.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentMessage, QueryOptions } from '../../src/index.ts';
import { scratchDir } from '../helpers/temp.ts';

/** Transcripts of in-process sessions go to a throwaway folder, never the user's ~/.agentpipe. */
process.env.AGENTPIPE_HOME ??= scratchDir('agentpipe-home-');
/**
 * The goldens fix one order of events: read-only calls of a turn run one at a time here (Claude Code's own setting).
 */
process.env.CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY = '1';

export const PROMPTS = ['Tidy up the notes, please.', 'And once more?'];

export const SCRIPT = {
  turns: [
    {
      thinking: 'Let me plan the work first.',
      text: 'I will make a plan.',
      chunk_size: 8,
      tool_calls: [
        {
          id: 'toolu_todo1',
          name: 'TodoWrite',
          input: {
            todos: [
              { content: 'Read notes', status: 'in_progress', activeForm: 'Reading notes' },
              { content: 'Update notes', status: 'pending', activeForm: 'Updating notes' },
            ],
          },
        },
        { id: 'toolu_read1', name: 'Read', input: { file_path: 'notes.txt' } },
        { id: 'toolu_glob1', name: 'Glob', input: { pattern: '*.txt' } },
      ],
    },
    {
      text: 'Now editing the notes.',
      chunk_size: 8,
      tool_calls: [
        {
          id: 'toolu_edit1',
          name: 'Edit',
          input: { file_path: 'notes.txt', old_string: 'hello', new_string: 'goodbye' },
        },
        { id: 'toolu_write1', name: 'Write', input: { file_path: 'secret.txt', content: 'top secret' } },
        { id: 'toolu_read2', name: 'Read', input: { file_path: 'missing.txt' } },
        { id: 'toolu_bash1', name: 'Bash', input: { command: 'echo hi' } },
      ],
    },
    {
      tool_calls: [
        {
          id: 'toolu_task1',
          name: 'Task',
          input: { description: 'Research notes', prompt: 'Summarize notes.txt', subagent_type: 'researcher' },
        },
      ],
    },
    { tool_calls: [{ id: 'toolu_sub_read', name: 'Read', input: { file_path: 'notes.txt' } }] },
    { text: 'The notes say goodbye world.', chunk_size: 8 },
    { text: 'All done: notes updated.', chunk_size: 8 },
    { error: { status: 400, message: 'bad request from the scripted model' } },
  ],
};

/** A fresh folder with the notes file, and the session options for it. */
export function scriptedOptions(extra: Partial<QueryOptions> = {}): QueryOptions & { cwd: string } {
  // Under /tmp whatever TMPDIR is: the goldens' token counts include the folder's path.
  const cwd = scratchDir('agentpipe-faces-', true);
  writeFileSync(path.join(cwd, 'notes.txt'), 'hello world\n');
  return {
    model: 'scripted',
    script: SCRIPT,
    cwd,
    allowedTools: ['Read', 'Glob', 'Edit', 'Bash(echo:*)'],
    agents: { researcher: { description: 'Looks things up', prompt: 'You research and report.', tools: ['Read'] } },
    ...extra,
  };
}

/** Both prompts as a streaming input, the second sent once the first has its result. */
export function promptStream(results: { count: number; wait(n: number): Promise<void> }) {
  return (async function* () {
    for (const [i, text] of PROMPTS.entries()) {
      if (i > 0) await results.wait(i);
      yield {
        type: 'user' as const,
        message: { role: 'user' as const, content: text },
        parent_tool_use_id: null,
        session_id: '',
      };
    }
  })();
}

/** Counts results as a consumer sees them, so a prompt stream can wait for them. */
export function resultCounter() {
  let count = 0;
  const waiters: Array<[number, () => void]> = [];
  return {
    get count() {
      return count;
    },
    seen(message: AgentMessage) {
      if (message.type !== 'result') return;
      count++;
      for (const [n, resolve] of waiters.splice(0))
        if (count >= n) resolve();
        else waiters.push([n, resolve]);
    },
    wait(n: number) {
      return count >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push([n, resolve]));
    },
  };
}
