/**
 * The Codex harness on `codex exec`, for a codex without an app-server (app-server.ts is the
 * harness otherwise): one `codex exec --json` process per prompt (`codex exec resume <thread>` after
 * the first), its JSONL events (codex-rs/exec/src/exec_events.rs) translated into the message union.
 * Commands become Bash calls, file changes Edit/Write calls with a diff-able `tool_use_result`, to-do
 * lists TodoWrite, MCP calls `mcp__<server>__<tool>`. Codex cannot ask for permission in exec mode
 * (its approval policy is always "never"), so permission modes choose its sandbox instead.
 */
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PermissionMode, UserContentBlock } from '../../messages/types.ts';
import { howItEnded } from '../cli-process.ts';
import { OneShotCliHarness } from '../one-shot.ts';
import type { TurnState } from '../turn-state.ts';
import type { HarnessOutcome, HarnessTurn } from '../types.ts';
import { retry } from '../../process/retry.ts';
import {
  fileCallOf,
  providerOverrides,
  forwardUnifiedDiff,
  reverseUnifiedDiff,
  stderrOf,
  tomlString,
  PRIVATE_TEMP_OVERRIDES,
  type CodexFileChange as Change,
  type FileCall,
} from './shared.ts';
import { CodexTurn } from './exec-turn.ts';
import { findRollout, recordedChange, unwind, type RecordedChange } from './rollout.ts';

/** Codex's sandbox per permission mode; exec mode never asks, so "default" cannot ask before edits and is read-only. */
export function codexPermissionArgs(mode: PermissionMode): string[] {
  switch (mode) {
    case 'bypassPermissions':
      return ['--dangerously-bypass-approvals-and-sandbox'];
    case 'acceptEdits':
      return ['--sandbox', 'workspace-write'];
    case 'default':
    case 'plan':
    case 'dontAsk':
      return ['--sandbox', 'read-only'];
  }
}

/** A wrapped `codex exec` (a codex without an app-server): see the module comment. */
export class CodexExecHarness extends OneShotCliHarness {
  readonly name = 'codex' as const;
  #warned = false;
  /** File contents after codex's last change to them (the before-text of its next change). */
  readonly #known = new Map<string, string>();
  /** Rollout file changes already matched to an exec event. */
  readonly #usedRecords = new Set<string>();

  get #model(): string {
    return this.config.model ?? 'codex';
  }

  get #codexHome(): string {
    return this.config.env.CODEX_HOME ?? path.join(this.config.env.HOME ?? os.homedir(), '.codex');
  }

  /** Warns once per harness about the options codex cannot honour. */
  #warnUnsupported(): void {
    if (this.#warned) return;
    this.#warned = true;
    const c = this.config;
    const ignored = [
      c.allowedTools.length ? 'allowedTools' : '',
      c.disallowedTools.length ? 'disallowedTools' : '',
      c.maxTurns !== undefined ? 'maxTurns' : '',
    ].filter(Boolean);
    if (ignored.length)
      this.config.warn(`harness codex: ignored options codex exec cannot honour: ${ignored.join(', ')}`);
  }

  /** The argv of one prompt. */
  argv(prompt: string, images: string[]): string[] {
    const c = this.config;
    const overrides = providerOverrides(c.baseUrl, c.env);
    const set = (key: string, value: string) => overrides.push('-c', `${key}=${value}`);
    if (c.systemPrompt !== undefined) {
      const file = path.join(this.temp(), 'instructions.md');
      writeFileSync(file, c.systemPrompt);
      set('model_instructions_file', tomlString(file));
    }
    if (c.appendSystemPrompt) set('developer_instructions', tomlString(c.appendSystemPrompt));
    // Values in `--flag=value` form, and the session id with the prompt after `--`: a model name or a resumed id
    // starting with `--` (`--last` would resume another session) stays a value.
    return [
      ...c.command,
      'exec',
      '--json',
      '--skip-git-repo-check',
      `--cd=${c.cwd}`,
      ...codexPermissionArgs(c.permissionMode),
      ...(c.model ? [`--model=${c.model}`] : []),
      ...PRIVATE_TEMP_OVERRIDES,
      ...overrides,
      ...(this.nativeId ? ['resume'] : []),
      ...images.map((file) => `--image=${file}`),
      '--',
      ...(this.nativeId ? [this.nativeId] : []),
      prompt,
    ];
  }

  /** The prompt's text, its images written to files for `--image`. */
  #prompt(prompt: string | UserContentBlock[]): { text: string; images: string[] } {
    if (typeof prompt === 'string') return { text: prompt, images: [] };
    const texts: string[] = [];
    const images: string[] = [];
    for (const block of prompt) {
      if (block.type === 'text') texts.push(block.text);
      else if (block.type === 'image' && block.source.type === 'base64') {
        const ext = block.source.media_type.split('/')[1] ?? 'png';
        const file = path.join(this.temp(), `image-${images.length}-${Date.now()}.${ext}`);
        writeFileSync(file, Buffer.from(block.source.data, 'base64'));
        images.push(file);
      } else this.config.warn(`harness codex: a ${block.type} block of the prompt was left out`);
    }
    return { text: texts.join('\n\n'), images };
  }

  protected async runPrompt(state: TurnState, turn: HarnessTurn): Promise<HarnessOutcome> {
    this.#warnUnsupported();
    if (turn.signal.aborted) return await state.interrupted();
    const { text, images } = this.#prompt(turn.prompt);
    const t = new CodexTurn(this, state);
    const exit = await this.runProcess(turn, {
      argv: this.argv(text, images),
      env: this.config.env,
      onEvent: (value) => t.event(value),
      onGarbage: (line) => state.unknown('non-JSON line', line),
    });
    if (!exit) {
      await t.closeOpen();
      return await state.interrupted();
    }
    await t.closeOpen();
    if (t.completed) return state.success();
    if (t.failed) return state.failure([t.failed]);
    const tail = stderrOf(exit.stderr);
    const errors = [`codex ${howItEnded(exit)} before its turn completed${tail ? `: ${tail}` : ''}`];
    if (t.lastError) errors.push(t.lastError);
    return state.failure(errors);
  }

  /** Called with each thread id codex reports. */
  thread(id: string): void {
    this.nativeId = id;
  }

  /**
   * The Edit or Write call (input, result, content) of one completed change, with what is known of the file before it.
   * Its text comes from codex's rollout, not the disk: codex may have applied its next changes by the time this event
   * is read (the disk is then unwound through them).
   */
  async fileCall(change: Change, before: string | undefined): Promise<FileCall> {
    const file = change.path;
    if (change.kind === 'delete') {
      this.#known.delete(file);
      return fileCallOf(change, undefined, '');
    }
    const disk = (await readFile(file, 'utf8').catch(() => null)) ?? '';
    const [recorded, ...later] = await this.#recorded(file);
    const known = this.#known.get(file);
    let after: string | undefined;
    if (recorded?.type === 'add') after = recorded.text;
    else if (recorded && known !== undefined) after = forwardUnifiedDiff(known, recorded.text);
    after ??= unwind(disk, later) ?? disk;
    this.#known.set(file, after);
    let original = known ?? (before !== undefined && before !== after ? before : undefined);
    if (change.kind === 'update' && original === undefined && recorded?.type === 'update')
      original = reverseUnifiedDiff(after, recorded.text);
    return fileCallOf(change, original, after);
  }

  /**
   * The changes of `file` codex's rollout records and no earlier event took, oldest first: the first is this event's.
   * Polled briefly while codex writes it.
   */
  async #recorded(file: string): Promise<RecordedChange[]> {
    if (!this.nativeId) return [];
    const nativeId = this.nativeId;
    const found = await retry(
      async () => {
        const rollout = findRollout(this.#codexHome, nativeId);
        const text = rollout ? await readFile(rollout, 'utf8').catch(() => '') : '';
        const changes = text
          .split('\n')
          .filter((line) => line.includes('"FileChange"'))
          .flatMap((line) => recordedChange(line, file))
          .filter((c) => !this.#usedRecords.has(c.key));
        return changes.length ? changes : undefined;
      },
      { attempts: 6, delayMs: 50 },
    );
    if (found?.[0]) this.#usedRecords.add(found[0].key);
    return found ?? [];
  }

  get model(): string {
    return this.#model;
  }
}
