/**
 * The harness conformance suite (Hono's `common.case.test.ts` idea): one table of cases that every harness runs
 * (claude, codex, gemini, qwen, acp), each against its real CLI offline on a local fake of its provider. A harness
 * test file gives an adapter (how to start the CLI on a script of model turns) and calls `runConformance`; a case a
 * harness cannot support is an explicit skip in its adapter, with the reason, shown in the test output.
 *
 * The model turns are abstract (`text`, `shell`, `hang`, `error`): each adapter serves them in its provider's wire
 * format, the n-th model request taking the n-th turn (the last one repeating).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { toAcpUpdates } from '../../../src/index.ts';
import { harnessCommand, HarnessSetupError, HARNESS_CLIS } from '../../../src/harness/index.ts';
import type { HarnessConfig } from '../../../src/harness/types.ts';
import type { AgentMessage, PermissionMode } from '../../../src/messages/types.ts';
import { liveGroupCount } from '../../../src/process/run.ts';
import { assertOneTerminalUpdate } from '../../helpers/acp-properties.ts';
import { scratchDir } from '../../helpers/temp.ts';
import { toolResults, toolUses, typesOf, type DrivenHarness } from '../helpers.ts';

/** One answer of the fake provider, in no provider's format. */
export type ModelTurn =
  /** An assistant text, streamed in these pieces. */
  | { kind: 'text'; chunks: string[] }
  /** A call of the CLI's own shell tool with this command. */
  | { kind: 'shell'; command: string }
  /** Starts an answer with `text` and never ends it. */
  | { kind: 'hang'; text: string }
  /** The provider refuses the key (HTTP 401). */
  | { kind: 'unauthorized' };

/** A harness started on a fake provider; `another` starts a second harness on the same fake and folders. */
export interface ConformanceRun {
  driven: DrivenHarness;
  cwd: string;
  /** The bodies of the model requests so far, as JSON text, in order. */
  modelRequests(): string[];
  another(config: Partial<HarnessConfig>): Promise<DrivenHarness>;
  /** Closes every harness started and the fake. */
  close(): Promise<void>;
}

/** The names of the shared cases. */
export type CaseName =
  | 'text'
  | 'tool call'
  | 'permission denied'
  | 'interrupt'
  | 'resume'
  | 'provider error'
  | 'crashing CLI'
  | 'missing CLI';

/** How one harness runs the suite. */
export interface ConformanceAdapter {
  name: Exclude<HarnessConfig['name'], 'agentpipe'>;
  /** Starts the harness on a fake answering `script` (the config overrides the adapter's defaults). */
  start(script: ModelTurn[], config?: Partial<HarnessConfig>): Promise<ConformanceRun>;
  /** The config that points the harness at a command of our own (a crashing or missing CLI). */
  commandConfig(command: string[]): Promise<{ driven: DrivenHarness; close(): Promise<void> }>;
  /**
   * Why the CLI does not put a permission question to agentpipe in the default mode (it refuses the tool on its own
   * instead): the tool call then runs in bypassPermissions and the denial case checks the refusal alone.
   */
  noPermissionPrompt?: string;
  /**
   * The mode the tool-call case runs in where the default mode cannot run an allowed command that writes, and why
   * (the case then does not check the question: the denial case does).
   */
  toolCallMode?: { mode: PermissionMode; why: string };
  /** What the tool result of a denied call says (the session's message, or the CLI's own words). */
  denial: RegExp;
  /** Cases this harness skips, each with its reason. */
  skip?: Partial<Record<CaseName, string>>;
}

/** A function giving the turns of `script` in order, the last one repeating. */
export function turnsOf<T>(script: T[]): () => T {
  let answered = 0;
  return () => script[Math.min(answered++, script.length - 1)]!;
}

/**
 * A ConformanceRun from how to start one harness (`start`, given config over the run's): every harness started is
 * closed by `close`, then the fake (also when the first harness cannot start).
 */
export async function conformanceRun(o: {
  cwd: string;
  start: (more: Partial<HarnessConfig>) => Promise<DrivenHarness>;
  modelRequests: () => string[];
  closeFake: () => Promise<void>;
}): Promise<ConformanceRun> {
  const started: DrivenHarness[] = [];
  const another = async (more: Partial<HarnessConfig>) => {
    const driven = await o.start(more);
    started.push(driven);
    return driven;
  };
  const close = async () => {
    for (const h of started) await h.harness.close();
    await o.closeFake();
  };
  try {
    return { driven: await another({}), cwd: o.cwd, another, modelRequests: o.modelRequests, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The stream events of the Messages API: the only ones a harness emits. */
const ANTHROPIC_EVENTS: string[] = [
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
];

const finalTexts = (messages: AgentMessage[]) =>
  messages.flatMap((m) =>
    m.type === 'assistant' ? m.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : [],
  );

const joinedDeltas = (messages: AgentMessage[]) =>
  messages
    .flatMap((m) =>
      m.type === 'stream_event' && m.event.type === 'content_block_delta' && m.event.delta.type === 'text_delta'
        ? [m.event.delta.text]
        : [],
    )
    .join('');

/** The types of the messages but the transient ones (deltas, status, heartbeats). */
const lasting = (messages: AgentMessage[]) =>
  typesOf(messages).filter((t) => t !== 'stream_event' && t !== 'system/status' && t !== 'tool_progress');

/** A run that closes whatever happens. */
async function withRun(run: ConformanceRun, body: (run: ConformanceRun) => Promise<void>): Promise<void> {
  try {
    await body(run);
  } finally {
    await run.close();
  }
}

/** A fake CLI that prints garbage, an unknown event twice and an error, then exits with code 3. */
function crashingCli(name: string): string[] {
  const script = path.join(scratchDir(`conformance-crash-${name}`), 'crashing-cli.mjs');
  writeFileSync(
    script,
    [
      'console.log("not json at all");',
      'console.log(JSON.stringify({ type: "mystery", x: 1 }));',
      'console.log(JSON.stringify({ type: "mystery", x: 2 }));',
      'console.error("fatal: the fake fell over");',
      'process.exitCode = 3;',
    ].join('\n'),
  );
  return [process.execPath, script];
}

type Case = (adapter: ConformanceAdapter) => Promise<void>;

/** The shared table: each case's title and body. */
export const CASES: Record<CaseName, { title: string; run: Case }> = {
  text: {
    title: 'a prompt streams deltas that join to its one final text; init first with the native id; usage counted',
    run: async (adapter) =>
      withRun(
        await adapter.start([{ kind: 'text', chunks: ['Hello ', 'from ', 'the fake'] }], {
          includePartialMessages: true,
        }),
        async ({ driven }) => {
          const { messages, outcome, usage } = await driven.prompt('say hi');
          assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
          assert.equal(outcome.text, 'Hello from the fake');
          assert.deepEqual(lasting(messages), ['system/init', 'assistant']);
          assert.deepEqual(finalTexts(messages), ['Hello from the fake']);
          assert.equal(joinedDeltas(messages), 'Hello from the fake');
          const kinds = new Set(messages.flatMap((m) => (m.type === 'stream_event' ? [m.event.type] : [])));
          assert.deepEqual(
            [...kinds].filter((k) => !ANTHROPIC_EVENTS.includes(k)),
            [],
            "the stream events are the Messages API's (a CLI's own events are not passed through)",
          );
          const init = messages[0]!;
          assert.ok(init.type === 'system' && init.subtype === 'init' && init.harness === adapter.name);
          assert.ok(init.harness_session_id, 'init names the native session');
          assert.equal(init.harness_session_id, driven.harness.nativeSessionId);
          assert.ok(
            messages.every((m) => m.session_id === init.session_id),
            "every message carries agentpipe's session id",
          );
          assert.ok(usage.usage.input_tokens > 0 && usage.usage.output_tokens > 0, JSON.stringify(usage.usage));
        },
      ),
  },
  'tool call': {
    title:
      'a shell call is asked, allowed and shows as Bash with its output as the tool result; one terminal ACP update',
    run: async (adapter) =>
      withRun(
        await adapter.start(
          [
            { kind: 'shell', command: 'echo conformance-ran > ran.txt && cat ran.txt' },
            { kind: 'text', chunks: ['It ran.'] },
          ],
          adapter.noPermissionPrompt
            ? { permissionMode: 'bypassPermissions' }
            : adapter.toolCallMode
              ? { permissionMode: adapter.toolCallMode.mode }
              : {},
        ),
        async ({ driven, cwd }) => {
          const asked: Array<[string, unknown]> = [];
          const { messages, outcome } = await driven.prompt('run it', {
            askPermission: async (tool, input) => {
              asked.push([tool, input.command]);
              return { behavior: 'allow' };
            },
          });
          assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
          assert.equal(outcome.text, 'It ran.');
          assert.equal(readFileSync(path.join(cwd, 'ran.txt'), 'utf8'), 'conformance-ran\n');
          if (!adapter.toolCallMode)
            assert.deepEqual(
              asked,
              adapter.noPermissionPrompt ? [] : [['Bash', 'echo conformance-ran > ran.txt && cat ran.txt']],
            );
          const uses = toolUses(messages);
          assert.equal(uses.length, 1);
          assert.equal(uses[0]!.name, 'Bash');
          assert.equal(
            (uses[0]!.input as { command?: unknown }).command,
            'echo conformance-ran > ran.txt && cat ran.txt',
          );
          const results = toolResults(messages);
          assert.equal(results.length, 1);
          assert.equal(results[0]!.block.tool_use_id, uses[0]!.id);
          assert.ok(!results[0]!.block.is_error);
          assert.match(JSON.stringify(results[0]!.block.content), /conformance-ran/);
          assert.deepEqual(lasting(messages), ['system/init', 'assistant', 'user', 'assistant']);
          assert.equal(outcome.numTurns, 2);
          assertOneTerminalUpdate(toAcpUpdates(messages));
        },
      ),
  },
  'permission denied': {
    title: 'a shell call in the default mode is asked through the session; denied, it does not run',
    run: async (adapter) =>
      withRun(
        await adapter.start([
          { kind: 'shell', command: 'touch denied.txt' },
          { kind: 'text', chunks: ['Refused.'] },
        ]),
        async ({ driven, cwd }) => {
          const asked: Array<[string, unknown]> = [];
          const { messages, outcome } = await driven.prompt('make a file', {
            askPermission: async (tool, input) => {
              asked.push([tool, input.command]);
              return { behavior: 'deny', message: 'not today' };
            },
          });
          assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
          assert.deepEqual(asked, adapter.noPermissionPrompt ? [] : [['Bash', 'touch denied.txt']]);
          assert.equal(existsSync(path.join(cwd, 'denied.txt')), false, 'the command did not run');
          const results = toolResults(messages);
          assert.equal(results.length, 1);
          assert.equal(results[0]!.block.is_error, true);
          assert.match(JSON.stringify(results[0]!.block.content), adapter.denial);
          assertOneTerminalUpdate(toAcpUpdates(messages));
        },
      ),
  },
  interrupt: {
    title: 'an interrupt mid-stream ends the prompt as aborted; the next prompt is answered; no process left',
    run: async (adapter) => {
      await withRun(
        await adapter.start(
          [
            { kind: 'hang', text: 'partial ' },
            { kind: 'text', chunks: ['After the interrupt.'] },
          ],
          { includePartialMessages: true },
        ),
        async ({ driven }) => {
          const cut = await driven.prompt('talk', {
            onMessage: (m, controller) => {
              if (m.type === 'stream_event' && m.event.type === 'content_block_delta') controller.abort();
            },
          });
          assert.equal(cut.outcome.subtype, 'error_during_execution');
          assert.match(cut.outcome.terminalReason, /aborted/);
          const next = await driven.prompt('go on');
          assert.equal(next.outcome.subtype, 'success', next.outcome.errors.join('\n'));
          assert.equal(next.outcome.text, 'After the interrupt.');
        },
      );
      assert.equal(liveGroupCount(), 0, 'no process group left');
    },
  },
  resume: {
    title: 'the next prompt continues the conversation; a new harness given the native session id resumes it',
    run: async (adapter) =>
      withRun(
        await adapter.start([
          { kind: 'text', chunks: ['Noted.'] },
          { kind: 'text', chunks: ['You told me a colour.'] },
          { kind: 'text', chunks: ['It was blue.'] },
        ]),
        async ({ driven, modelRequests, another }) => {
          const first = await driven.prompt('remember: my colour is blue');
          assert.equal(first.outcome.subtype, 'success', first.outcome.errors.join('\n'));
          const native = driven.harness.nativeSessionId;
          assert.ok(native);
          const next = await driven.prompt('what did I say?');
          assert.equal(next.outcome.text, 'You told me a colour.');
          assert.equal(driven.harness.nativeSessionId, native, 'the same native session');
          assert.match(modelRequests().at(-1)!, /my colour is blue[^]*Noted\.[^]*what did I say\?/);
          await driven.harness.close();
          const second = await another({ resumeNativeId: native });
          const run = await second.prompt('what was my colour?');
          assert.equal(run.outcome.subtype, 'success', run.outcome.errors.join('\n'));
          assert.equal(run.outcome.text, 'It was blue.');
          assert.equal(second.harness.nativeSessionId, native);
          assert.deepEqual(lasting(run.messages), ['system/init', 'assistant'], 'the history is not emitted again');
          const init = run.messages[0]!;
          assert.ok(init.type === 'system' && init.subtype === 'init' && init.harness_session_id === native);
          assert.match(
            modelRequests().at(-1)!,
            /my colour is blue[^]*Noted\.[^]*You told me a colour\.[^]*what was my colour\?/,
            'the resumed request carries the history',
          );
        },
      ),
  },
  'provider error': {
    title: 'a rejected key ends the prompt with one failure outcome that says so',
    run: async (adapter) =>
      withRun(await adapter.start([{ kind: 'unauthorized' }]), async ({ driven }) => {
        const { messages, outcome } = await driven.prompt('say hi');
        assert.equal(outcome.subtype, 'error_during_execution');
        assert.match(outcome.errors.join('\n'), /401|API key/i);
        assert.equal(typesOf(messages)[0], 'system/init');
        assert.equal(toolUses(messages).length, 0);
      }),
  },
  'crashing CLI': {
    title: 'a CLI that prints garbage and dies gives one failure outcome saying how it ended',
    run: async (adapter) => {
      const { driven, close } = await adapter.commandConfig(crashingCli(adapter.name));
      try {
        const { messages, outcome } = await driven.prompt('hi');
        assert.equal(outcome.subtype, 'error_during_execution');
        assert.equal(outcome.errors.length, 1, outcome.errors.join('\n'));
        // How it ended with its stderr; or, where the first line decides (an ACP agent must speak JSON-RPC), that line.
        assert.match(outcome.errors[0]!, /code 3[^]*the fake fell over|printed "not json at all"/);
        assert.equal(typesOf(messages)[0], 'system/init');
        assert.ok(!messages.some((m) => m.type === 'assistant'));
        const mystery = driven.warnings.filter((w) => w.includes('mystery'));
        assert.ok(mystery.length <= 1, `an unknown event is reported once at most: ${mystery.join(' | ')}`);
      } finally {
        await close();
      }
      assert.equal(liveGroupCount(), 0, 'no process group left');
    },
  },
  'missing CLI': {
    title: 'a missing CLI is a setup error naming what to install; a command that does not exist fails the prompt',
    run: async (adapter) => {
      const empty = scratchDir(`conformance-missing-${adapter.name}`);
      const setup = harnessCommand(adapter.name, undefined, { PATH: empty });
      const pkg = HARNESS_CLIS[adapter.name].package;
      await assert.rejects(setup, (error: unknown) => {
        assert.ok(HarnessSetupError.isInstance(error));
        assert.match(error.message, pkg ? new RegExp(`npm install -g ${pkg}`) : /needs --harness-command/);
        return true;
      });
      const { driven, close } = await adapter.commandConfig([path.join(empty, 'no-such-cli')]);
      try {
        const { messages, outcome } = await driven.prompt('hi');
        assert.equal(outcome.subtype, 'error_during_execution');
        assert.equal(outcome.errors.length, 1, outcome.errors.join('\n'));
        assert.match(outcome.errors[0]!, /no-such-cli|ENOENT/);
        assert.deepEqual(typesOf(messages), ['system/init']);
      } finally {
        await close();
      }
    },
  },
};

/** Registers every case of the table for `adapter` (skips with their reasons). */
export function runConformance(adapter: ConformanceAdapter): void {
  for (const [name, c] of Object.entries(CASES) as Array<[CaseName, (typeof CASES)[CaseName]]>) {
    const skip = adapter.skip?.[name];
    test(`conformance ${adapter.name}: ${name}: ${c.title}`, skip ? { skip } : {}, () => c.run(adapter));
  }
}
