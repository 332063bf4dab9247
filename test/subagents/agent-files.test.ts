/** Agents from Markdown files (`.agentpipe/agents/*.md`, `$AGENTPIPE_HOME/agents/*.md`) through the real CLI. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines } from '../helpers/cli.ts';
import { sdkOptions, supportedAgentsOf } from '../sdk/helpers.ts';
import { writeScript } from '../helpers/workspace.ts';
import { runInProcess, toolResults } from '../helpers/agent-run.ts';
import {
  CLAUDE,
  STREAM,
  STREAM_IN,
  anthropic,
  place,
  run,
  text,
  toolCall,
  trusted,
  type Place,
} from '../session/helpers.ts';

const REVIEWER = `---
name: reviewer
description: Reviews code for bugs
tools: Read, Grep
model: claude-reviewer-model
---
You are a strict code reviewer.
Report only real bugs.
`;
const PLANNER = `---
description: Plans work
tools:
  - Glob
---
You plan.
`;

function agentFile(folder: string, name: string, content: string): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, name), content);
}
const projectAgents = (p: Place) => path.join(p.cwd, '.agentpipe', 'agents');
const userAgents = (p: Place) => path.join(p.home, 'agents');
const scripted = (p: Place, turns: unknown[]) => ['--model', 'scripted', '--script', writeScript(p.home, turns)];

test('project and user agent files are listed in system/init and run by the Task tool with their prompt, tools and model', async () => {
  const p = trusted(place());
  agentFile(projectAgents(p), 'reviewer.md', REVIEWER);
  agentFile(userAgents(p), 'planner.md', PLANNER);
  const server = await anthropic([
    toolCall('toolu_task', 'Task', { description: 'review', prompt: 'review a.ts', subagent_type: 'reviewer' }),
    text('no bugs'),
    text('done'),
  ]);
  const { stdout, code, stderr } = await run(p, ['-p', 'go', ...STREAM, ...CLAUDE], { env: server.env });
  assert.equal(code, 0, stderr);
  const lines = parseLines(stdout);
  const init = lines.find((l) => l.subtype === 'init')!;
  assert.deepEqual([...init.agents].sort(), ['general-purpose', 'planner', 'reviewer']);
  assert.ok(init.tools.includes('Task'));
  assert.match(
    server.requests[0]!.body.tools.find((t: { name: string }) => t.name === 'Agent').description,
    /- planner: Plans work/,
  );
  const sub = server.requests[1]!.body;
  assert.equal(sub.system, 'You are a strict code reviewer.\nReport only real bugs.');
  assert.deepEqual(sub.tools.map((t: { name: string }) => t.name).sort(), ['Grep', 'Read']);
  assert.equal(sub.model, 'claude-reviewer-model');
  assert.equal(toolResults(lines).get('toolu_task')!.content, 'no bugs');
  assert.equal(lines.at(-1)!.result, 'done');
});

test('--agent runs the main thread as an agent from a file (the name defaults to the file name)', async () => {
  const p = place();
  agentFile(userAgents(p), 'planner.md', PLANNER);
  const server = await anthropic([text('planned')]);
  const { stdout, code, stderr } = await run(p, ['-p', 'plan it', ...STREAM, ...CLAUDE, '--agent', 'planner'], {
    env: server.env,
  });
  assert.equal(code, 0, stderr);
  const body = server.requests[0]!.body;
  assert.equal(body.system, 'You plan.');
  assert.deepEqual(
    body.tools.map((t: { name: string }) => t.name),
    ['Glob'],
  );
  assert.equal(body.model, 'claude-sonnet-4-5', 'no model in the file: the session model');
  assert.equal(parseLines(stdout).at(-1)!.result, 'planned');
});

test('on a name clash --agents wins over the files, and project files over user files', async () => {
  const p = trusted(place());
  agentFile(userAgents(p), 'reviewer.md', REVIEWER.replace('Reviews code for bugs', 'user reviewer'));
  agentFile(userAgents(p), 'planner.md', PLANNER.replace('Plans work', 'user planner'));
  agentFile(projectAgents(p), 'planner.md', PLANNER.replace('Plans work', 'project planner'));
  const agents = { reviewer: { description: 'flag reviewer', prompt: 'From the flag.' } };
  const stdin =
    JSON.stringify({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize' } }) + '\n';
  const { stdout, code, stderr } = await run(
    p,
    [...STREAM_IN, ...scripted(p, []), '--agents', JSON.stringify(agents)],
    { stdin },
  );
  assert.equal(code, 0, stderr);
  const answer = parseLines(stdout).find((l) => l.type === 'control_response')!.response.response;
  const described = Object.fromEntries(
    answer.agents.map((a: { name: string; description: string }) => [a.name, a.description]),
  );
  assert.equal(described.reviewer, 'flag reviewer');
  assert.equal(described.planner, 'project planner');
});

test('setting sources decide which folders are read; none reads no agent files', async () => {
  const p = place();
  agentFile(projectAgents(p), 'reviewer.md', REVIEWER);
  agentFile(userAgents(p), 'planner.md', PLANNER);
  const initOf = async (sources: string) => {
    const { stdout, code, stderr } = await run(p, [
      '-p',
      'hi',
      ...STREAM,
      ...scripted(p, [{ text: 'ok' }]),
      '--setting-sources',
      sources,
    ]);
    assert.equal(code, 0, stderr);
    return parseLines(stdout).find((l) => l.subtype === 'init')!;
  };
  assert.deepEqual((await initOf('user')).agents, ['general-purpose', 'planner']);
  assert.deepEqual((await initOf('project,local')).agents, ['general-purpose', 'reviewer']);
  const none = await initOf('');
  assert.deepEqual(none.agents, ['general-purpose'], 'only the built-in agent');
  assert.ok(none.tools.includes('Task'), 'Task (general-purpose) is always offered');
});

test('a malformed agent file is skipped with a warning naming it; the other agents and the prompt go on', async () => {
  const p = trusted(place());
  agentFile(projectAgents(p), 'reviewer.md', REVIEWER);
  agentFile(projectAgents(p), 'broken.md', '---\ndescription: [unclosed\n---\nbody\n');
  agentFile(projectAgents(p), 'nodesc.md', '---\nname: nodesc\n---\nbody\n');
  agentFile(projectAgents(p), 'plain.md', 'just text, no frontmatter\n');
  agentFile(projectAgents(p), 'notes.txt', 'not an agent');
  const { stdout, code, stderr } = await run(p, ['-p', 'hi', ...STREAM, ...scripted(p, [{ text: 'fine' }])]);
  assert.equal(code, 0, stderr);
  const folder = projectAgents(p);
  assert.match(
    stderr,
    new RegExp(`warning: skipped the agent file ${path.join(folder, 'broken.md')}: invalid YAML frontmatter`),
  );
  assert.match(
    stderr,
    new RegExp(`skipped the agent file ${path.join(folder, 'nodesc.md')}: "description" is required`),
  );
  assert.match(stderr, new RegExp(`skipped the agent file ${path.join(folder, 'plain.md')}: no YAML frontmatter`));
  const lines = parseLines(stdout);
  assert.deepEqual(lines.find((l) => l.subtype === 'init')!.agents, ['general-purpose', 'reviewer']);
  assert.equal(lines.at(-1)!.result, 'fine');
});

test('the library default (no setting sources) reads no agent files; settingSources: ["project"] does', async () => {
  const p = place();
  agentFile(projectAgents(p), 'reviewer.md', REVIEWER);
  const initOf = async (options: Record<string, unknown>) =>
    (await runInProcess([{ text: 'ok' }], { cwd: p.cwd, persistSession: false, ...options })).find(
      (l: any) => l.subtype === 'init',
    ) as any;
  assert.deepEqual((await initOf({})).agents, ['general-purpose'], 'only the built-in agent');
  assert.deepEqual((await initOf({ settingSources: ['project'] })).agents, ['general-purpose', 'reviewer']);
});

test('the official SDK with settingSources ["project"] sees the project agent files in supportedAgents()', async () => {
  const options = sdkOptions([], { settingSources: ['project'] });
  agentFile(path.join(options.cwd, '.agentpipe', 'agents'), 'reviewer.md', REVIEWER);
  const agents = await supportedAgentsOf(options);
  assert.equal(agents.find((a) => a.name === 'reviewer')?.description, 'Reviews code for bugs');
});
