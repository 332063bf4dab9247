/** SDK scenarios: the official Agent SDK query() driving each product: callbacks, control, streaming input. */
import {
  createSdkMcpServer,
  tool,
  type Options,
  type Query,
  type PermissionResult,
  type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { answer, calls, textThenCalls } from '../replies.ts';
import type { Reply } from '../../../model/fake-servers.ts';
import type { SdkContext, SdkScenario } from '../scenario.ts';

const sdk = (s: Omit<SdkScenario, 'kind'>): SdkScenario => ({ kind: 'sdk', ...s });
type Call = [string, string, Record<string, unknown>];

/** A one-prompt query with `options`, collected. */
const once =
  (options: Options = {}, prompt = 'go') =>
  async (ctx: SdkContext) => {
    await ctx.collect(ctx.query(prompt, options));
    return null;
  };

/** A query whose canUseTool answers `answerWith` and records what it was asked. */
function asking(answerWith: (input: Record<string, unknown>) => PermissionResult) {
  return async (ctx: SdkContext) => {
    const asked: unknown[] = [];
    await ctx.collect(
      ctx.query('go', {
        canUseTool: async (name, input, o) => {
          asked.push({
            name,
            input,
            suggestions: o.suggestions,
            blockedPath: o.blockedPath,
            reason: o.decisionReason,
            title: o.title,
            displayName: o.displayName,
            description: o.description,
          });
          return answerWith(input);
        },
      }),
    );
    return asked;
  };
}

/** A prompt stream: the messages, then the end. */
async function* prompts(...texts: string[]): AsyncIterable<SDKUserMessage> {
  for (const text of texts)
    yield { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' };
}

/** A hook scenario: the Bash call runs in bypassPermissions with `hooks`; what the callbacks `record` is compared. */
/**
 * agentpipe keeps its transcripts in `$AGENTPIPE_HOME/projects/` and Claude Code in `$CLAUDE_CONFIG_DIR/projects/`:
 * the hook scenarios give both products the same folder (the suite's CLAUDE_CONFIG_DIR), so `transcript_path` is
 * compared as it is.
 */
const SAME_TRANSCRIPTS = { AGENTPIPE_HOME: '{home}/.claude' };

function withHooks(name: string, hooks: (record: (input: unknown) => void) => Options['hooks']): SdkScenario {
  return sdk({
    area: 'hooks',
    name,
    env: SAME_TRANSCRIPTS,
    replies: touch,
    run: async (ctx) => {
      const inputs: unknown[] = [];
      const options: Options = { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true };
      await ctx.collect(ctx.query('go', { ...options, hooks: hooks((input) => inputs.push(input)) }));
      return inputs;
    },
  });
}

/** A control scenario: `ask` calls control methods on a streaming-input query, then its messages are read. */
function controlled(name: string, ask: (q: Query) => Promise<unknown>): SdkScenario {
  return sdk({
    area: 'control',
    name,
    replies: [answer('ok')],
    run: async (ctx) => {
      const q = ctx.query(prompts('hi'));
      const got = await ask(q);
      await ctx.collect(q);
      return got;
    },
  });
}

/** Two prompts, the second sent once `release` is called (after the first result). */
function gated(): { two: () => AsyncIterable<SDKUserMessage>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  async function* two(): AsyncIterable<SDKUserMessage> {
    yield* prompts('first');
    await gate;
    yield* prompts('second');
  }
  return { two, release };
}

/** A text answer whose frames come 300 ms apart (an interrupt lands mid-stream). */
const slow = (text: string): Reply => ({
  kind: 'sse',
  frames: (answer(text) as { frames: string[] }).frames,
  delayMs: 300,
});
const bashCall = (command: string): Call => ['toolu_s', 'Bash', { command }];
const touch = [calls(bashCall('touch made.txt')), answer('done')];

export const sdkScenarios: SdkScenario[] = [
  sdk({ area: 'stream', name: 'sdk/text', replies: [answer('hello')], run: once() }),
  sdk({
    area: 'stream',
    name: 'sdk/tool-bypass',
    replies: touch,
    run: once({ permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true }),
  }),
  sdk({
    area: 'partial',
    name: 'sdk/partial-messages',
    replies: [textThenCalls('Looking now.')],
    run: once({ includePartialMessages: true }),
  }),
  sdk({
    area: 'callbacks',
    name: 'sdk/can-use-tool-allow',
    replies: touch,
    run: asking((input) => ({ behavior: 'allow', updatedInput: input })),
  }),
  sdk({
    area: 'callbacks',
    name: 'sdk/can-use-tool-deny',
    replies: touch,
    run: asking(() => ({ behavior: 'deny', message: 'not today' })),
  }),
  sdk({
    area: 'callbacks',
    name: 'sdk/can-use-tool-deny-interrupt',
    replies: touch,
    run: asking(() => ({ behavior: 'deny', message: 'stop here', interrupt: true })),
  }),
  sdk({
    area: 'callbacks',
    name: 'sdk/can-use-tool-updated-input',
    replies: touch,
    run: asking(() => ({ behavior: 'allow', updatedInput: { command: 'touch other.txt' } })),
  }),
  sdk({
    area: 'callbacks',
    name: 'sdk/can-use-tool-write-suggestions',
    replies: (cwd) => [calls(['toolu_w', 'Write', { file_path: `${cwd}/n.txt`, content: 'n' }]), answer('done')],
    run: asking((input) => ({ behavior: 'allow', updatedInput: input })),
  }),
  sdk({
    area: 'callbacks',
    name: 'sdk/can-use-tool-outside-read',
    replies: [calls(['toolu_r', 'Read', { file_path: '/etc/hostname' }]), answer('done')],
    run: asking(() => ({ behavior: 'deny', message: 'no' })),
  }),
  withHooks('sdk/hook-pre-tool-use', (record) => ({
    PreToolUse: [{ hooks: [async (input) => (record(input), { continue: true })] }],
  })),
  withHooks('sdk/hook-deny', () => ({
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [
          async () => ({
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: 'hook says no',
            },
          }),
        ],
      },
    ],
  })),
  withHooks('sdk/hook-post-tool-use', (record) => ({
    PostToolUse: [
      {
        hooks: [
          async (input) => (
            record(input),
            { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'noted' } }
          ),
        ],
      },
    ],
  })),
  sdk({
    area: 'hooks',
    name: 'sdk/hook-user-prompt-submit',
    env: SAME_TRANSCRIPTS,
    replies: [answer('ok')],
    run: async (ctx) => {
      const inputs: unknown[] = [];
      await ctx.collect(
        ctx.query('go', { hooks: { UserPromptSubmit: [{ hooks: [async (input) => (inputs.push(input), {})] }] } }),
      );
      return inputs;
    },
  }),
  controlled('sdk/supported-commands-and-models', async (q) => {
    const commands = await q.supportedCommands();
    return { commands: commands.map((c) => c.name).sort(), models: await q.supportedModels() };
  }),
  sdk({
    area: 'control',
    name: 'sdk/set-permission-mode',
    replies: touch,
    run: async (ctx) => {
      const q = ctx.query(prompts('go'));
      const answerOf = await q.setPermissionMode('acceptEdits');
      const refused = await q.setPermissionMode('bypassPermissions').then(
        () => null,
        (error: Error) => error.message,
      );
      await ctx.collect(q);
      return { answerOf: answerOf ?? null, refused };
    },
  }),
  sdk({
    area: 'control',
    name: 'sdk/set-model',
    replies: [answer('one'), answer('two')],
    run: async (ctx) => {
      const { two, release } = gated();
      const q = ctx.query(two());
      let results = 0;
      for await (const m of q) {
        ctx.keep(m);
        if (m.type === 'result' && ++results === 1) {
          await q.setModel('claude-opus-4-1');
          release();
        }
      }
      return null;
    },
  }),
  // The model table (src/model/claude-models.ts) against the real CLI's, for a session started on: an alias, an older
  // model (a row of its own), an earlier Fable (after the fable row), a model Claude Code does not know (a custom
  // row). No prompt runs: what a prompt on each model streams is sdk/set-model's.
  ...['opus', 'claude-haiku-4-5', 'claude-fable-5-1', 'gpt-4o'].map((model) =>
    sdk({
      area: 'control',
      name: `sdk/supported-models-${model}`,
      replies: [],
      run: async (ctx) => {
        const q = ctx.query(prompts(), { model });
        const models = await q.supportedModels();
        await ctx.collect(q);
        return models;
      },
    }),
  ),
  controlled('sdk/mcp-status', (q) => q.mcpServerStatus()),
  controlled('sdk/initialization-result', async (q) => {
    const init = await q.initializationResult();
    return { keys: Object.keys(init).sort(), output_style: init.output_style, account: init.account };
  }),
  sdk({
    area: 'mcp',
    name: 'sdk/sdk-mcp-tool',
    replies: [calls(['toolu_m', 'mcp__probe__add', { a: 2, b: 3 }]), answer('5')],
    run: async (ctx) => {
      const probe = createSdkMcpServer({
        name: 'probe',
        tools: [
          tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => ({
            content: [{ type: 'text', text: String(a + b) }],
          })),
        ],
      });
      await ctx.collect(ctx.query('go', { mcpServers: { probe }, allowedTools: ['mcp__probe__add'] }));
      return null;
    },
  }),
  sdk({
    area: 'stream',
    name: 'sdk/two-prompts',
    replies: [answer('one'), answer('two')],
    run: async (ctx) => (await ctx.collect(ctx.query(prompts('a', 'b'))), null),
  }),
  sdk({
    area: 'stream',
    name: 'sdk/system-prompt-string',
    replies: [answer('ok')],
    run: once({ systemPrompt: 'Be brief.' }),
  }),
  sdk({
    area: 'stream',
    name: 'sdk/system-prompt-preset-append',
    replies: [answer('ok')],
    run: once({ systemPrompt: { type: 'preset', preset: 'claude_code', append: 'Extra.' } }),
  }),
  sdk({
    area: 'limits',
    name: 'sdk/max-turns',
    replies: touch,
    run: once({ maxTurns: 1, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true }),
  }),
  sdk({ area: 'permissions', name: 'sdk/plan-mode', replies: touch, run: once({ permissionMode: 'plan' }) }),
  sdk({
    area: 'permissions',
    name: 'sdk/plan-mode-can-use-tool',
    replies: touch,
    run: async (ctx) => {
      const asked: string[] = [];
      // Claude Code does not ask: the call is refused before any prompt (docs/compat.md).
      const canUseTool = async (name: string, input: Record<string, unknown>): Promise<PermissionResult> => {
        asked.push(name);
        return { behavior: 'allow', updatedInput: input };
      };
      await ctx.collect(ctx.query('go', { permissionMode: 'plan', canUseTool }));
      return asked;
    },
  }),
  sdk({ area: 'permissions', name: 'sdk/disallowed-tools', replies: touch, run: once({ disallowedTools: ['Bash'] }) }),
  sdk({ area: 'permissions', name: 'sdk/default-no-callback', replies: touch, run: once() }),
  sdk({
    area: 'interrupt',
    name: 'sdk/interrupt-mid-stream',
    replies: [slow('a long answer that is cut'), answer('after')],
    run: async (ctx) => {
      const { two, release } = gated();
      const q = ctx.query(two(), { includePartialMessages: true });
      let interrupted = false;
      for await (const m of q) {
        ctx.keep(m);
        if (!interrupted && m.type === 'stream_event' && m.event.type === 'content_block_delta') {
          interrupted = true;
          ctx.keep({ interruptAnswer: (await q.interrupt()) ?? null });
        }
        if (m.type === 'result') release();
      }
      return null;
    },
  }),
  sdk({
    area: 'structured',
    name: 'sdk/output-format',
    replies: [calls(['toolu_s', 'StructuredOutput', { n: 1 }])],
    run: once({
      outputFormat: {
        type: 'json_schema',
        schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
    }),
  }),
  sdk({
    area: 'sessions',
    name: 'sdk/resume',
    replies: [answer('one'), answer('two')],
    run: async (ctx) => {
      const first = await ctx.collect(ctx.query('first'));
      const result = first.find((m) => 'type' in m && m.type === 'result') as { session_id: string } | undefined;
      await ctx.collect(ctx.query('second', { resume: result?.session_id ?? '' }));
      return null;
    },
  }),
];
