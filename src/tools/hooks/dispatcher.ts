/**
 * The one hook dispatcher: command hooks from settings, library callbacks and the SDK client's
 * callbacks all register here. `run` picks the hooks whose matcher fits, runs them in parallel,
 * reports each in a `system/hook_response` message and merges their decisions into one verdict.
 */
import { errorMessage } from '../../process/errors.ts';
import { newUuid } from '../../messages/ids.ts';
import type { HookResponseMessage } from '../../messages/types.ts';
import { DEFAULT_HOOK_TIMEOUT_MS, callbackHook, clientHook, type HookRequester } from './callback.ts';
import { commandHook } from './command.ts';
import type { SandboxConfig } from '../../sandbox/config.ts';
import type { HookSettings } from './settings.ts';
import {
  HOOK_EVENTS,
  type HookCall,
  type HookCallbacks,
  type HookEvent,
  type HookHandler,
  type HookInput,
  type HookOnFailure,
  type HookOutput,
  type HookRun,
  type HookRunner,
  type HookVerdict,
} from './types.ts';

/** Where a registered hook came from, as `get_hooks_listing` names it. */
export type HookSource =
  'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings' | 'sessionHook' | 'sdkHook';

/** One registered hook as `get_hooks_listing` shows it. */
export interface HookListing {
  event: HookEvent;
  matcher: string;
  source: HookSource;
  type: 'command' | 'callback';
  text: string;
  timeoutMs: number;
}

interface Registered {
  matches: (value: string | undefined) => boolean;
  handler: HookHandler;
  matcher: string;
  source: HookSource;
  type: HookListing['type'];
  onFailure: HookOnFailure;
}

/** Events whose hooks' `onFailure` is ignored: they guard no action (as in Claude Code). */
const NO_FAILURE_BLOCK = new Set<HookEvent>(['Stop', 'SubagentStop']);

/** Events whose `hook_response` is in the stream without `includeHookEvents` (the SDK's typings). */
const ALWAYS_SHOWN = new Set<string>(['SessionStart', 'Setup']);

/** Events whose plain stdout (exit 0, not JSON) becomes context for the model, as in Claude Code. */
const CONTEXT_FROM_STDOUT = new Set<HookEvent>(['UserPromptSubmit', 'SessionStart']);

export class HookDispatcher implements HookRunner {
  readonly #hooks = new Map<HookEvent, Registered[]>();
  /**
   * Emit `hook_started` before each hook and `hook_response` after it (`includeHookEvents`); without it, as in Claude
   * Code 2.1.332, only SessionStart and Setup hooks' responses are in the stream.
   */
  announce = false;
  /** Sees every hook's response, in the stream or not (the session's telemetry). */
  observe?: (response: HookResponseMessage) => void;
  /** The sandbox command hooks run in (the session sets it). */
  sandbox?: SandboxConfig;
  /** The session's transcript file, for the hooks' `transcript_path` (`''` when the session keeps none). */
  transcriptPath: () => string = () => '';
  /**
   * The uuid of the prompt running (`prompt_id`, as Claude Code 2.1.332 sends it: the same for every hook until the
   * next prompt, absent before the first).
   */
  promptId?: string;

  add(
    event: HookEvent,
    matcher: string | undefined,
    handler: HookHandler,
    source: HookSource = 'sessionHook',
    type: HookListing['type'] = 'callback',
    onFailure: HookOnFailure = 'continue',
  ): void {
    if (!(HOOK_EVENTS as readonly string[]).includes(event))
      throw new Error(`unknown hook event "${event}"; expected one of ${HOOK_EVENTS.join(', ')}`);
    const list = this.#hooks.get(event) ?? [];
    list.push({ matches: matcherOf(event, matcher), handler, matcher: matcher ?? '', source, type, onFailure });
    this.#hooks.set(event, list);
  }

  /** Command hooks of a settings file (`source`: which layer, for the listing). */
  addSettings(settings: HookSettings, source: HookSource = 'flagSettings'): void {
    for (const [event, matchers] of Object.entries(settings) as Array<
      [HookEvent, NonNullable<HookSettings[HookEvent]>]
    >) {
      for (const { matcher, hooks } of matchers) {
        for (const hook of hooks)
          this.add(
            event,
            matcher,
            commandHook(hook.command, (hook.timeout ?? 60) * 1000, () => this.sandbox),
            source,
            'command',
            hook.onFailure,
          );
      }
    }
  }

  /** Drops every hook from `source` (a settings layer being replaced). */
  removeSource(source: HookSource): void {
    for (const [event, list] of this.#hooks)
      this.#hooks.set(
        event,
        list.filter((h) => h.source !== source),
      );
  }

  /** Every registered hook, events in `HOOK_EVENTS` order (`get_hooks_listing`). */
  listing(): HookListing[] {
    return HOOK_EVENTS.flatMap((event) =>
      (this.#hooks.get(event) ?? []).map((h) => ({
        event,
        matcher: h.matcher,
        source: h.source,
        type: h.type,
        text: h.handler.label,
        timeoutMs: h.handler.timeoutMs,
      })),
    );
  }

  /** Library callbacks (`SessionOptions.hooks`). */
  addCallbacks(callbacks: HookCallbacks): void {
    for (const [event, matchers] of Object.entries(callbacks) as Array<
      [HookEvent, NonNullable<HookCallbacks[HookEvent]>]
    >) {
      for (const { matcher, hooks, timeout, onFailure } of matchers ?? []) {
        for (const hook of hooks)
          this.add(
            event,
            matcher,
            callbackHook(hook, timeout ? timeout * 1000 : DEFAULT_HOOK_TIMEOUT_MS),
            'sessionHook',
            'callback',
            onFailure,
          );
      }
    }
  }

  /** The SDK client's hooks from `initialize.hooks`; each runs through a `hook_callback` request. */
  addClientHooks(
    hooks: Record<
      string,
      Array<{ matcher?: string; hookCallbackIds: string[]; timeout?: number; onFailure?: HookOnFailure }>
    >,
    request: HookRequester,
  ): void {
    for (const [event, matchers] of Object.entries(hooks)) {
      if (!(HOOK_EVENTS as readonly string[]).includes(event)) continue; // events agentpipe never fires
      for (const { matcher, hookCallbackIds, timeout, onFailure } of matchers ?? []) {
        for (const id of hookCallbackIds ?? [])
          this.add(
            event as HookEvent,
            matcher,
            clientHook(id, timeout ? timeout * 1000 : DEFAULT_HOOK_TIMEOUT_MS, request),
            'sdkHook',
            'callback',
            onFailure,
          );
      }
    }
  }

  has(event: HookEvent): boolean {
    return (this.#hooks.get(event)?.length ?? 0) > 0;
  }

  async run(event: HookEvent, fields: Record<string, unknown>, call: HookCall): Promise<HookVerdict> {
    const verdict: HookVerdict = { ran: false, additionalContext: [] };
    const selected = (this.#hooks.get(event) ?? []).filter((h) => h.matches(call.matchValue));
    if (selected.length === 0) return verdict;
    const input: HookInput = {
      session_id: call.sessionId,
      transcript_path: this.transcriptPath(),
      ...(this.promptId !== undefined && event !== 'SessionStart' ? { prompt_id: this.promptId } : {}),
      cwd: call.cwd,
      permission_mode: call.permissionMode,
      ...(call.agent ? { agent_id: call.agent.id, agent_type: call.agent.type } : {}),
      hook_event_name: event,
      ...fields,
    };
    const name = call.matchValue !== undefined ? `${event}:${call.matchValue}` : event;
    const ids = selected.map(() => newUuid());
    if (this.announce) {
      for (const id of ids)
        await call.emit({
          type: 'system',
          subtype: 'hook_started',
          hook_id: id,
          hook_name: name,
          hook_event: event,
          uuid: newUuid(),
          session_id: call.sessionId,
        });
    }
    const runs = await Promise.all(selected.map(({ handler }) => handler.run(input, call.toolUseId, call.signal)));
    const parse = runs.some((run) => run.output !== undefined)
      ? (await import('./output-schema.ts')).parseHookOutput
      : undefined;
    const outputs = runs.map((run) => (parse ? checkOutput(run, parse) : undefined));
    if (!NO_FAILURE_BLOCK.has(event))
      for (const [i, run] of runs.entries()) if (selected[i]!.onFailure === 'block') blockOnFailure(run);
    verdict.ran = true;
    for (const [i, run] of runs.entries()) {
      const response = responseMessage(ids[i]!, name, event, run, call.sessionId);
      this.observe?.(response);
      if (this.announce || ALWAYS_SHOWN.has(event)) await call.emit(response);
      const { handler, source } = selected[i]!;
      merge(verdict, event, run, outputs[i], handler.label, source === 'sdkHook');
    }
    return verdict;
  }
}

/**
 * '' / '*' / no matcher: all; `A|B` of plain names: exact names; else a regex. An invalid regex
 * is an error when the hook is added (a matcher that silently never matches would hide the hook).
 */
function matcherOf(event: HookEvent, matcher: string | undefined): (value: string | undefined) => boolean {
  if (!matcher || matcher === '*') return () => true;
  if (/^[\w|-]+$/.test(matcher)) {
    const names = matcher.split('|');
    return (value) => value === undefined || names.includes(value);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(matcher);
  } catch (error) {
    throw new Error(
      `${event} hook matcher ${JSON.stringify(matcher)} is not a valid regular expression ` +
        `(${errorMessage(error)})`,
    );
  }
  return (value) => value === undefined || regex.test(value);
}

/** A hook answer that is not a valid HookOutput makes the run an error that says why (its decision is not used). */
function checkOutput(
  run: HookRun,
  parse: (value: unknown) => { ok: true; output: HookOutput } | { ok: false; error: string },
): HookOutput | undefined {
  if (run.output === undefined) return undefined;
  const parsed = parse(run.output);
  if (parsed.ok) return parsed.output;
  run.outcome = 'error';
  run.stderr += `${run.stderr ? '\n' : ''}invalid hook output: ${parsed.error}`;
  return undefined;
}

/**
 * `onFailure: "block"`: a hook that failed (not one that blocked, nor one cancelled by an interrupt) counts as exit
 * code 2, in Claude Code 2.1.332's words.
 */
function blockOnFailure(run: HookRun): void {
  if (run.outcome !== 'error' || run.blocked !== undefined) return;
  run.blocked = `${run.timedOut ? 'timed out' : 'failed'}; blocking because onFailure is "block"`;
  run.failed = true;
}

function responseMessage(
  hookId: string,
  name: string,
  event: HookEvent,
  run: HookRun,
  sessionId: string,
): HookResponseMessage {
  return {
    type: 'system',
    subtype: 'hook_response',
    hook_id: hookId,
    hook_name: name,
    hook_event: event,
    output: run.stdout + run.stderr,
    stdout: run.stdout,
    stderr: run.stderr,
    ...(run.exitCode !== undefined ? { exit_code: run.exitCode } : {}),
    outcome: run.outcome,
    uuid: newUuid(),
    session_id: sessionId,
  };
}

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

/** `host`: the hook is one the SDK client registered (its `ask` ranks below another hook's `ask`). */
function merge(
  verdict: HookVerdict,
  event: HookEvent,
  run: HookRun,
  out: HookOutput | undefined,
  label: string,
  host: boolean,
): void {
  if (run.outcome === 'error' && run.blocked === undefined) verdict.failed = true;
  if (run.blocked) {
    if (verdict.block === undefined) {
      verdict.blockedBy = label;
      // A failed hook's own stderr follows the reason; a timed-out one's is agentpipe's note, left out.
      const stderr = run.failed && !run.timedOut ? run.stderr.trim() || 'No stderr output' : '';
      verdict.blockedStderr = run.failed ? `${run.blocked}${stderr ? `\n${stderr}` : ''}` : run.stderr;
      if (run.failed) verdict.failure = { reason: `[${label}]: ${run.blocked}`, stderr };
    }
    verdict.block ??= run.blocked;
    if (event === 'PreToolUse') setPermission(verdict, 'deny', run.blocked);
    return;
  }
  if (!out) {
    if (run.outcome === 'success' && CONTEXT_FROM_STDOUT.has(event) && run.stdout.trim())
      verdict.additionalContext.push(run.stdout.trim());
    return;
  }
  if (out.continue === false) verdict.stop ??= out.stopReason || `Stopped by the ${event} hook ${label}`;
  const specific = out.hookSpecificOutput;
  if (out.decision === 'block') {
    const reason = out.reason || specific?.permissionDecisionReason || `Blocked by the ${event} hook ${label}`;
    verdict.blockedBy ??= verdict.block === undefined ? label : undefined;
    verdict.block ??= reason;
    if (event === 'PreToolUse') setPermission(verdict, 'deny', reason);
  }
  if (out.decision === 'approve' && event === 'PreToolUse') setPermission(verdict, 'allow', out.reason);
  if (specific) {
    const decision = specific.permissionDecision;
    if (decision === 'allow' || decision === 'deny' || decision === 'ask') {
      setPermission(
        verdict,
        decision,
        specific.permissionDecisionReason ??
          (decision === 'deny' ? `Denied by the PreToolUse hook ${label}` : undefined),
        host,
      );
      if (decision === 'deny') verdict.block ??= verdict.permissionReason;
    }
    if (specific.updatedInput && typeof specific.updatedInput === 'object')
      verdict.updatedInput = specific.updatedInput;
    if (typeof specific.additionalContext === 'string' && specific.additionalContext)
      verdict.additionalContext.push(specific.additionalContext);
    if (specific.updatedToolOutput !== undefined) verdict.updatedToolOutput = specific.updatedToolOutput;
  }
}

/**
 * The strongest decision wins (deny over ask over allow); between two asks, another hook's reason outranks the SDK
 * client's own (Claude Code 2.1.332's `other_hook_ask_outranks_host`), so the can_use_tool request carries it.
 */
function setPermission(
  verdict: HookVerdict,
  decision: 'allow' | 'deny' | 'ask',
  reason: string | undefined,
  host = false,
): void {
  if (verdict.permission && RANK[verdict.permission] > RANK[decision]) return;
  const outranksHost = decision === 'ask' && verdict.askByHost === true && !host;
  if (verdict.permission === decision && !outranksHost) return;
  verdict.permission = decision;
  verdict.permissionReason = reason;
  verdict.askByHost = decision === 'ask' && host;
}
