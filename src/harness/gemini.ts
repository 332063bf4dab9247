/**
 * The Gemini CLI harness: one `gemini --output-format stream-json` process per prompt (`--resume
 * <session>` after the first), its JSONL events (packages/core/src/output/types.ts: init, message,
 * tool_use, tool_result, error, result) translated into the message union. Gemini's tools become
 * Bash/Edit/Write/Read/Glob/Grep/WebFetch calls in agentpipe's input shapes; its file edits get a
 * diff-able `tool_use_result`. Headless Gemini cannot ask for permission (tools that need approval
 * are not offered to the model), so permission modes choose its approval mode.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PermissionMode, UserContentBlock } from '../messages/types.ts';
import { howItEnded, stderrTail, type CliProcess } from './cli-process.ts';
import { descendants } from './gemini/process-tree.ts';
import { GEMINI_TOOLS, geminiToolRule } from './gemini/tools.ts';
import { GeminiTurn } from './gemini/turn.ts';
import { OneShotCliHarness } from './one-shot.ts';
import type { TurnState } from './turn-state.ts';
import type { HarnessOutcome, HarnessTurn } from './types.ts';

export { geminiToolRule, mapGeminiTool } from './gemini/tools.ts';

/** Gemini's `--approval-mode` per permission mode (headless: tools needing approval are withheld, as with dontAsk). */
export function geminiApprovalMode(mode: PermissionMode): 'default' | 'auto_edit' | 'yolo' | 'plan' {
  switch (mode) {
    case 'bypassPermissions':
      return 'yolo';
    case 'acceptEdits':
      return 'auto_edit';
    case 'plan':
      return 'plan';
    case 'default':
    case 'dontAsk':
      return 'default';
  }
}

/** Terminal colour codes (Gemini colours some of its fatal messages). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The Gemini CLI behind agentpipe's stream: one `gemini -p` process per prompt, resumed by its session id. */
export class GeminiHarness extends OneShotCliHarness {
  readonly name = 'gemini' as const;
  #warned = false;

  /**
   * Stops the CLI and the commands it runs: Gemini starts each shell command in a process group of
   * its own, which outlives it when it is killed; those groups get SIGTERM, then SIGKILL.
   */
  protected override async stop(proc: CliProcess): Promise<void> {
    const own = proc.pid;
    const groups =
      own === undefined || proc.exited
        ? []
        : [...new Set(descendants(own).map((d) => d.pgid))].filter((g) => g !== own && g > 1);
    const signal = (name: NodeJS.Signals) => {
      for (const group of groups) {
        try {
          process.kill(-group, name);
        } catch {
          // gone already
        }
      }
    };
    signal('SIGTERM');
    proc.stop();
    await proc.done;
    signal('SIGKILL');
  }

  /** Warns once per harness about the options Gemini cannot honour. */
  #warnUnsupported(): void {
    if (this.#warned) return;
    this.#warned = true;
    const c = this.config;
    const ignored = [
      c.maxTurns !== undefined ? 'maxTurns (only model.maxSessionTurns in its settings.json)' : '',
      c.appendSystemPrompt && c.systemPrompt === undefined
        ? 'appendSystemPrompt (GEMINI_SYSTEM_MD replaces its whole system prompt)'
        : '',
    ].filter(Boolean);
    if (ignored.length) c.warn(`harness gemini: ignored options gemini cannot honour: ${ignored.join(', ')}`);
  }

  /** The argv of one prompt. */
  argv(prompt: string): string[] {
    const c = this.config;
    const allowed = c.allowedTools.map(geminiToolRule);
    const policy = c.disallowedTools.length ? [`--policy=${this.#denyPolicy()}`] : [];
    // `--flag=value` throughout: a model name or a resumed session id starting with `--` stays a value (issue 27).
    return [
      ...c.command,
      '--output-format=stream-json',
      `--approval-mode=${geminiApprovalMode(c.permissionMode)}`,
      ...(c.model ? [`--model=${c.model}`] : []),
      ...(this.nativeId ? [`--resume=${this.nativeId}`] : []),
      ...(allowed.length ? [`--allowed-tools=${allowed.join(',')}`] : []),
      ...policy,
      `--prompt=${prompt}`,
    ];
  }

  /** A policy file denying the disallowed tools (Gemini's policy engine; `--policy`). */
  #denyPolicy(): string {
    const rules = this.config.disallowedTools.map((rule) => {
      const match = /^(\w+)(?:\((.*)\))?$/.exec(rule.trim());
      const name = match ? (GEMINI_TOOLS[match[1]!] ?? match[1]!) : rule;
      const prefix = match?.[2]?.replace(/:\*$/, '').replace(/\s*\*$/, '');
      const prefixLine = prefix && name === 'run_shell_command' ? `commandPrefix = ${JSON.stringify(prefix)}\n` : '';
      return `[[rule]]\ntoolName = ${JSON.stringify(name)}\n${prefixLine}decision = "deny"\npriority = 999\n`;
    });
    const file = path.join(this.temp(), 'disallowed-tools.toml');
    writeFileSync(file, rules.join('\n'));
    return file;
  }

  /** The CLI's environment: the base URL, the system prompt file, no relaunch (one process to stop). */
  #env(): Record<string, string> {
    const c = this.config;
    const env: Record<string, string> = { GEMINI_CLI_NO_RELAUNCH: 'true', ...c.env };
    if (c.baseUrl) env.GOOGLE_GEMINI_BASE_URL = c.baseUrl;
    // Gemini takes a base URL for its `gateway` auth, which `-p` refuses ("Invalid auth method selected"; with no
    // base URL it picks the API key itself): the key's auth as the lowest layer of its settings, its system defaults,
    // so an auth the user's own settings select still wins. The file is in Gemini's own home: it reads system files
    // only under folders no one else may write (never the temp folder), and its home is what its sandbox lets it read.
    if (env.GEMINI_API_KEY && !env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH) {
      const folder = path.join(this.geminiHome, '.gemini');
      const file = path.join(folder, 'agentpipe-system-defaults.json');
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(file, JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }), { mode: 0o600 });
      env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH = file;
    }
    if (c.systemPrompt !== undefined) {
      const file = path.join(this.temp(), 'system.md');
      writeFileSync(file, c.appendSystemPrompt ? `${c.systemPrompt}\n\n${c.appendSystemPrompt}` : c.systemPrompt);
      env.GEMINI_SYSTEM_MD = file;
    }
    return env;
  }

  /** The prompt's text (Gemini takes no images on the command line). */
  #prompt(prompt: string | UserContentBlock[]): string {
    if (typeof prompt === 'string') return prompt;
    const texts: string[] = [];
    for (const block of prompt) {
      if (block.type === 'text') texts.push(block.text);
      else
        this.config.warn(
          `harness gemini: a ${block.type} block of the prompt was left out (gemini -p takes text only)`,
        );
    }
    return texts.join('\n\n');
  }

  protected async runPrompt(state: TurnState, turn: HarnessTurn): Promise<HarnessOutcome> {
    this.#warnUnsupported();
    if (turn.signal.aborted) return await state.interrupted();
    const t = new GeminiTurn(this, state);
    const exit = await this.runProcess(turn, {
      argv: this.argv(this.#prompt(turn.prompt)),
      env: this.#env(),
      onEvent: (value) => t.event(value),
      onGarbage: (text) => state.unknown('non-JSON line', text),
    });
    if (!exit) {
      await t.endText('end_turn');
      await t.closeOpen();
      return await state.interrupted();
    }
    await t.endText('end_turn');
    await t.closeOpen();
    if (t.status === 'success' && !t.errors.length) return state.success();
    if (t.status !== undefined) return state.failure(t.errors.length ? t.errors : ['gemini reported an error']);
    const tail = stderrTail(
      exit.stderr
        .replace(ANSI, '')
        .split('\n')
        .filter((l) => !/^\s+at /.test(l))
        .join('\n'),
    );
    return state.failure([`gemini ${howItEnded(exit)} before its result${tail ? `: ${tail}` : ''}`, ...t.errors]);
  }

  /** Called with the session id Gemini reports. */
  session(id: string): void {
    this.nativeId = id;
  }

  /** Gemini's home folder (its session recordings are under `.gemini/tmp/<project>/chats`). */
  get geminiHome(): string {
    return this.config.env.GEMINI_CLI_HOME ?? this.config.env.HOME ?? os.homedir();
  }
}
