/** CLI scenarios: permission modes and rules, hooks, API errors and retries, the stream, limits, sessions. */
import { anthropicBlock, anthropicStream } from '../../../model/fake-servers.ts';
import { answer, answerStopping, apiError, calls, cut, empty, textThenCalls, thinkThenAnswer } from '../replies.ts';
import type { CliScenario } from '../scenario.ts';

type Call = [string, string, Record<string, unknown>];
const cli = (s: Omit<CliScenario, 'kind'>): CliScenario => ({ kind: 'cli', ...s });
const settings = (value: unknown) => JSON.stringify(value);

/** A permission scenario: one call in `mode` with `extra` flags; the files show whether it ran. */
function permission(name: string, call: (cwd: string) => Call, extra: string[]): CliScenario {
  return cli({
    area: 'permissions',
    name: `permissions/${name}`,
    files: { 'a.txt': 'one\n' },
    replies: (cwd) => [calls(call(cwd)), answer('done')],
    args: ['go', ...extra],
  });
}
const bash = (command: string) => (): Call => ['toolu_p', 'Bash', { command }];
const write = (cwd: string): Call => ['toolu_p', 'Write', { file_path: `${cwd}/new.txt`, content: 'n\n' }];
const mode = (m: string) => ['--permission-mode', m];

export const permissionScenarios: CliScenario[] = [
  permission('default-bash-asks', bash('touch made.txt'), []),
  permission('default-read-only-bash', bash('ls'), []),
  permission('default-write-asks', write, []),
  permission('accept-edits-write', write, mode('acceptEdits')),
  permission('accept-edits-bash', bash('touch made.txt'), mode('acceptEdits')),
  permission('plan-write', write, mode('plan')),
  permission('plan-bash', bash('touch made.txt'), mode('plan')),
  permission('plan-read-only-bash', bash('ls'), mode('plan')),
  permission('plan-bash-allow-rule', bash('touch made.txt'), ['--allowedTools', 'Bash(touch:*)', ...mode('plan')]),
  permission('plan-read', (cwd) => ['toolu_p', 'Read', { file_path: `${cwd}/a.txt` }], mode('plan')),
  permission('dont-ask-bash', bash('touch made.txt'), mode('dontAsk')),
  permission('bypass-bash', bash('touch made.txt'), mode('bypassPermissions')),
  permission('allow-rule-prefix', bash('touch made.txt'), ['--allowedTools', 'Bash(touch:*)']),
  permission('allow-rule-other-command', bash('rm a.txt'), ['--allowedTools', 'Bash(touch:*)']),
  permission('deny-rule-bash', bash('rm a.txt'), ['--disallowedTools', 'Bash(rm:*)', ...mode('bypassPermissions')]),
  permission('deny-tool-write', write, ['--disallowedTools', 'Write', ...mode('acceptEdits')]),
  permission('allow-tool-write', write, ['--allowedTools', 'Write']),
  permission('tools-flag-hides', write, ['--tools', 'Read', ...mode('acceptEdits')]),
  permission('read-outside', () => ['toolu_p', 'Read', { file_path: '/etc/hostname' }], []),
  permission(
    'edit-git-config',
    (cwd) => ['toolu_p', 'Write', { file_path: `${cwd}/.git/config`, content: 'x' }],
    mode('acceptEdits'),
  ),
  permission('deny-rule-read-path', (cwd) => ['toolu_p', 'Read', { file_path: `${cwd}/a.txt` }], [
    '--disallowedTools',
    'Read(./a.txt)',
  ]),
];

const hook = (event: string, command: string, matcher?: string, options: Record<string, unknown> = {}) =>
  settings({
    hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command, ...options }] }] },
  });
const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;

function hooked(
  name: string,
  event: string,
  command: string,
  call: Call | undefined,
  extra: string[] = [],
  options: Record<string, unknown> = {},
): CliScenario {
  return cli({
    area: 'hooks',
    name: `hooks/${name}`,
    files: { 'hooks.json': hook(event, command, event.endsWith('ToolUse') ? 'Bash' : undefined, options) },
    replies: call ? [calls(call), answer('done')] : [answer('done')],
    args: ['go', '--settings', 'hooks.json', ...mode('bypassPermissions'), ...extra],
  });
}
const echoCall: Call = ['toolu_h', 'Bash', { command: 'echo ran' }];
/** A Stop hook that blocks the first ending only. */
const blockOnce = `test -f stopped || { touch stopped; ${json({ decision: 'block', reason: 'one more' })}; }`;
/** A Bash call that writes `f<n>.txt` (not read-only: such calls run one at a time, in order). */
const writes = (n: string): Call => [`toolu_${n}`, 'Bash', { command: `echo ${n} > f${n}.txt` }];
const block = { onFailure: 'block' };

export const hookScenarios: CliScenario[] = [
  hooked('pre-tool-deny-exit-2', 'PreToolUse', 'echo blocked by policy >&2; exit 2', echoCall),
  hooked(
    'pre-tool-deny-json',
    'PreToolUse',
    json({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
    }),
    echoCall,
  ),
  hooked(
    'pre-tool-allow',
    'PreToolUse',
    json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }),
    echoCall,
  ),
  hooked(
    'pre-tool-updated-input',
    'PreToolUse',
    json({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { command: 'echo changed' },
      },
    }),
    echoCall,
  ),
  hooked(
    'post-tool-context',
    'PostToolUse',
    json({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'remember this' } }),
    echoCall,
  ),
  hooked('post-tool-block', 'PostToolUse', json({ decision: 'block', reason: 'looked wrong' }), echoCall),
  hooked('prompt-block', 'UserPromptSubmit', 'echo no secrets >&2; exit 2', undefined),
  hooked('prompt-context', 'UserPromptSubmit', 'echo extra context from hook', undefined),
  hooked('stop-continue-once', 'Stop', blockOnce, undefined),
  hooked('pre-tool-failing-hook', 'PreToolUse', 'exit 1', echoCall),
  hooked('pre-tool-invalid-json', 'PreToolUse', "echo '{not json'", echoCall),
  // onFailure "block": a hook that fails counts as exit code 2.
  hooked('pre-tool-failing-hook-block', 'PreToolUse', 'echo broke >&2; exit 1', echoCall, [], block),
  hooked('pre-tool-invalid-json-block', 'PreToolUse', "echo '{not json'", echoCall, [], block),
  hooked('pre-tool-timeout-block', 'PreToolUse', 'sleep 5', echoCall, [], { ...block, timeout: 1 }),
  hooked('prompt-failing-hook-block', 'UserPromptSubmit', 'exit 1', undefined, [], block),
  hooked('post-tool-failing-hook-block', 'PostToolUse', 'echo broke >&2; exit 1', echoCall, [], block),
  hooked('stop-failing-hook-block', 'Stop', 'exit 1', undefined, [], block),
  hooked('stop-failing-hook', 'Stop', 'echo broke >&2; exit 1', undefined),
  hooked('pre-tool-silent-failing-hook-block', 'PreToolUse', 'exit 3', echoCall, [], block),
];

const retries = (n: number) => ({ CLAUDE_CODE_MAX_RETRIES: String(n) });
const errorScenario = (
  name: string,
  replies: CliScenario['replies'],
  env?: Record<string, string>,
  output?: CliScenario['output'],
): CliScenario =>
  cli({
    area: 'errors',
    name: `errors/${name}`,
    replies,
    args: ['hi'],
    ...(env ? { env } : {}),
    ...(output ? { output } : {}),
  });

export const errorScenarios: CliScenario[] = [
  errorScenario('400', [apiError(400, 'invalid_request_error', 'messages.0: bad')]),
  errorScenario('401', [apiError(401, 'authentication_error', 'invalid x-api-key')]),
  errorScenario('403', [apiError(403, 'permission_error', 'not for you')]),
  errorScenario('404-model', [apiError(404, 'not_found_error', 'model: claude-sonnet-4-6')]),
  errorScenario('429-no-retry', [apiError(429, 'rate_limit_error', 'slow down')]),
  errorScenario('500-no-retry', [apiError(500, 'api_error', 'Internal server error')]),
  errorScenario('529-no-retry', [apiError(529, 'overloaded_error', 'Overloaded')]),
  errorScenario('prompt-too-long', [
    apiError(400, 'invalid_request_error', 'prompt is too long: 300000 tokens > 200000 maximum'),
  ]),
  errorScenario(
    '500-then-ok',
    [apiError(500, 'api_error', 'boom', { 'retry-after': '0' }), answer('recovered')],
    retries(2),
  ),
  errorScenario(
    '529-twice-then-ok',
    [
      apiError(529, 'overloaded_error', 'Overloaded', { 'retry-after': '0' }),
      apiError(529, 'overloaded_error', 'Overloaded', { 'retry-after': '0' }),
      answer('ok'),
    ],
    retries(3),
  ),
  errorScenario(
    '401-retried',
    [apiError(401, 'authentication_error', 'invalid x-api-key', { 'retry-after': '0' }), answer('ok')],
    retries(2),
  ),
  errorScenario(
    '400-not-retried',
    [apiError(400, 'invalid_request_error', 'bad', { 'retry-after': '0' }), answer('never')],
    retries(2),
  ),
  errorScenario('500-json-output', [apiError(500, 'api_error', 'Internal server error')], undefined, 'json'),
  errorScenario('500-text-output', [apiError(500, 'api_error', 'Internal server error')], undefined, 'text'),
  errorScenario('cut-stream', [cut('half'), answer('whole')], retries(2)),
];

export const streamScenarios: CliScenario[] = [
  cli({ area: 'stream', name: 'stream/text', replies: [answer('hello')], args: ['hi'] }),
  cli({ area: 'stream', name: 'stream/text-output', replies: [answer('hello')], args: ['hi'], output: 'text' }),
  cli({ area: 'stream', name: 'stream/json-output', replies: [answer('hello')], args: ['hi'], output: 'json' }),
  cli({
    area: 'stream',
    name: 'stream/text-and-tool',
    replies: [textThenCalls('Let me look.', ['toolu_1', 'Bash', { command: 'echo hi' }]), answer('done')],
    args: ['hi', ...mode('bypassPermissions')],
  }),
  cli({
    area: 'partial',
    name: 'partial/text',
    replies: [answer('hello there')],
    args: ['hi', '--include-partial-messages'],
  }),
  cli({
    area: 'partial',
    name: 'partial/text-and-tool',
    replies: [textThenCalls('Looking now.', ['toolu_1', 'Bash', { command: 'echo hi' }]), answer('done')],
    args: ['hi', '--include-partial-messages', ...mode('bypassPermissions')],
  }),
  cli({ area: 'thinking', name: 'thinking/block', replies: [thinkThenAnswer('let me think', 'answer')], args: ['hi'] }),
  cli({
    area: 'thinking',
    name: 'thinking/partial',
    replies: [thinkThenAnswer('let me think', 'answer')],
    args: ['hi', '--include-partial-messages'],
  }),
  cli({
    area: 'stream',
    name: 'stream/stream-json-input-two-prompts',
    replies: [answer('first'), answer('second')],
    args: ['--input-format', 'stream-json'],
    stdin:
      ['one', 'two'].map((t) => JSON.stringify({ type: 'user', message: { role: 'user', content: t } })).join('\n') +
      '\n',
  }),
  cli({
    area: 'stream',
    name: 'stream/replay-user-messages',
    replies: [answer('first')],
    args: ['--input-format', 'stream-json', '--replay-user-messages'],
    stdin: JSON.stringify({ type: 'user', message: { role: 'user', content: 'one' } }) + '\n',
  }),
  cli({
    area: 'stream',
    name: 'stream/system-prompt-flag',
    replies: [answer('ok')],
    args: ['hi', '--system-prompt', 'You are terse.'],
  }),
  cli({
    area: 'stream',
    name: 'stream/two-text-blocks',
    replies: [
      {
        kind: 'sse',
        frames: anthropicStream(
          [
            anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'one' }]),
            anthropicBlock(1, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'two' }]),
          ],
          'end_turn',
        ),
      },
    ],
    args: ['hi'],
  }),
];

export const limitScenarios: CliScenario[] = [
  cli({
    area: 'limits',
    name: 'limits/max-turns-1',
    replies: [calls(['toolu_1', 'Bash', { command: 'echo hi' }]), answer('never')],
    args: ['hi', '--max-turns', '1', ...mode('bypassPermissions')],
  }),
  // Commands that write run one at a time, in order, in both products (two `echo`s ran together, finishing in either
  // order). `num_turns` at the limit is the turn that would begin, whatever the turns' results.
  cli({
    area: 'limits',
    name: 'limits/max-turns-2-serial',
    replies: [calls(writes('1'), writes('2')), calls(writes('3')), answer('never')],
    args: ['hi', '--max-turns', '2', ...mode('bypassPermissions')],
  }),
  cli({
    area: 'limits',
    name: 'limits/max-turns-1-three-calls',
    replies: [calls(writes('1'), writes('2'), writes('3')), answer('never')],
    args: ['hi', '--max-turns', '1', ...mode('bypassPermissions')],
  }),
  // A cut reply continued stays in its turn: the limit of 2 lets two rounds of tools run after it.
  cli({
    area: 'limits',
    name: 'limits/max-turns-cut-reply',
    replies: [answerStopping('cut sho', 'max_tokens'), calls(writes('1')), calls(writes('2')), answer('never')],
    args: ['hi', '--max-turns', '2', ...mode('bypassPermissions')],
  }),
  // A Stop hook's feedback begins a turn, as a round of tool results does.
  cli({
    area: 'limits',
    name: 'limits/max-turns-stop-hook',
    files: { 'hooks.json': hook('Stop', blockOnce) },
    replies: [calls(writes('1')), answer('first'), answer('second')],
    args: ['hi', '--max-turns', '2', '--settings', 'hooks.json', ...mode('bypassPermissions')],
  }),
  cli({
    area: 'limits',
    name: 'limits/max-budget',
    replies: [calls(['toolu_1', 'Bash', { command: 'echo spent > spent.txt' }]), answer('never')],
    args: ['hi', '--max-budget-usd', '0.00000001', ...mode('bypassPermissions')],
  }),
  cli({
    area: 'limits',
    name: 'limits/max-tokens-continues',
    replies: [answerStopping('cut sho', 'max_tokens'), answer('rt and done')],
    args: ['hi'],
  }),
  cli({ area: 'limits', name: 'limits/empty-reply', replies: [empty(), answer('now something')], args: ['hi'] }),
];

export const sessionScenarios: CliScenario[] = [
  cli({ area: 'sessions', name: 'sessions/continue-none', replies: [answer('fresh')], args: ['hi', '--continue'] }),
  cli({
    area: 'sessions',
    name: 'sessions/resume-unknown',
    replies: [answer('never')],
    args: ['hi', '--resume', '4a1f5c9e-0000-4000-8000-000000000000'],
  }),
  cli({
    area: 'sessions',
    name: 'sessions/resume',
    before: { args: ['first'], replies: [answer('one')] },
    replies: [answer('two')],
    args: ['second', '--resume', '{session}'],
  }),
  cli({
    area: 'sessions',
    name: 'sessions/continue',
    before: { args: ['first'], replies: [answer('one')] },
    replies: [answer('two')],
    args: ['second', '--continue'],
  }),
  cli({
    area: 'sessions',
    name: 'sessions/fork',
    before: { args: ['first'], replies: [answer('one')] },
    replies: [answer('two')],
    args: ['second', '--resume', '{session}', '--fork-session'],
  }),
  cli({
    area: 'sessions',
    name: 'sessions/no-persistence',
    replies: [answer('one')],
    args: ['hi', '--no-session-persistence'],
  }),
];

const SCHEMA = JSON.stringify({ type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] });
export const structuredScenarios: CliScenario[] = [
  cli({
    area: 'structured',
    name: 'structured/valid',
    replies: [calls(['toolu_s', 'StructuredOutput', { answer: 42 }])],
    args: ['answer', '--json-schema', SCHEMA],
  }),
  cli({
    area: 'structured',
    name: 'structured/invalid-then-valid',
    replies: [
      calls(['toolu_bad', 'StructuredOutput', { answer: 'x' }]),
      calls(['toolu_good', 'StructuredOutput', { answer: 1 }]),
    ],
    args: ['answer', '--json-schema', SCHEMA],
  }),
];
