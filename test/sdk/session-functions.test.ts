/**
 * The official SDK's session functions read Claude Code's folder (`$CLAUDE_CONFIG_DIR/projects/`): with
 * AGENTPIPE_HOME set to that folder, they read agentpipe's sessions too. `listSessions()` lists them;
 * `getSessionMessages()` follows Claude Code's `parentUuid` links back from the last message, which agentpipe's
 * main-thread user and assistant lines carry (src/session/transcript.ts), also across a resume.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { getSessionMessages, listSessions } from '@anthropic-ai/claude-agent-sdk';
import { parseLines, runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';

test("listSessions and getSessionMessages of the official SDK read agentpipe's transcripts", async () => {
  const cwd = tempDir({ 'notes.txt': 'hi\n' });
  const config = path.join(tempDir(), '.claude');
  const env = { AGENTPIPE_HOME: config };
  const first = await runCli(
    ['-p', 'look around', '--model', 'scripted', '--output-format', 'stream-json', '--verbose'],
    {
      cwd,
      env,
    },
  );
  const sessionId = String(parseLines(first.stdout).at(-1)!.session_id);
  const again = await runCli(
    ['-p', 'once more', '--model', 'scripted', '--resume', sessionId, '--output-format', 'json'],
    { cwd, env },
  );
  assert.equal(again.code, 0, again.stderr);
  process.env.CLAUDE_CONFIG_DIR = config;
  const sessions = await listSessions({ dir: cwd });
  assert.deepEqual(
    sessions.map((s) => [s.sessionId, s.firstPrompt]),
    [[sessionId, 'look around']],
  );
  const messages = await getSessionMessages(sessionId, { dir: cwd });
  const kinds = messages.map((m) => {
    const content = (m.message as { content: unknown }).content;
    const blocks = typeof content === 'string' ? [{ type: 'text' }] : (content as Array<{ type: string }>);
    return `${m.type}:${blocks.map((b) => b.type).join(',')}`;
  });
  // Both prompts, the tool call and its result, the answers: the whole conversation, in order.
  assert.equal(kinds[0], 'user:text');
  assert.ok(kinds.includes('assistant:tool_use'), kinds.join(' '));
  assert.ok(kinds.includes('user:tool_result'), kinds.join(' '));
  assert.equal(kinds.filter((k) => k === 'user:text').length, 2, kinds.join(' '));
  assert.equal(kinds.at(-1), 'assistant:text');
});
