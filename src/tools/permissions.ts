/**
 * The rule-and-mode verdict for one tool call, as in Claude Code's permission modes. Deny rules
 * win over everything; plan mode runs only what is read-only; allow rules, bypassPermissions and
 * read-only calls inside the working folders run without asking (as in Claude Code, reading
 * outside them asks); acceptEdits covers file edits inside the working folders except
 * configuration that can make programs run. Bash lines are judged on their parse (see
 * `shell/`), paths after `~` expansion and realpath. Anything not known to be safe is "ask".
 */
import path from 'node:path';
import type { PermissionMode } from '../messages/types.ts';
import { expandPath, realPath } from './paths.ts';
import { isInside } from '../process/paths.ts';
import {
  domainRuleMatches,
  formatRule,
  pathRuleMatches,
  toolNameMatches,
  type PermissionRule,
} from './permission-rules.ts';
import { protectedReason } from './protected-paths.ts';
import type { Tool } from './types.ts';
import type { CommandProfile, ShellSandbox } from '../sandbox/config.ts';
import { isPreapprovedUrl } from './preapproved-hosts.ts';

export { formatRule, isWholeToolRule, parseRules, type PermissionRule } from './permission-rules.ts';

/** What the rules say about one call; `ask` means a prompt (or a callback) decides. */
/**
 * `by`: what denied it, a deny rule or the permission mode; `path_rule` is a deny rule scoped to
 * paths (`Read(./secrets/**)`) refusing a file tool's call, which Claude Code refuses before any
 * permission surface, so it sends no `system/permission_denied` for it (sdk.d.ts).
 */
export type PermissionVerdict =
  | {
      behavior: 'allow';
      /**
       * Why it may run, which decides its sandbox: `read-only` when the check calls it read-only
       * (or plan mode), `workspace` when a rule or the mode allowed it, `unsandboxed` for a line of
       * `sandbox.excludedCommands` a rule or the mode approved.
       */
      sandbox: CommandProfile;
      /** A Bash line acceptEdits runs for what each of its commands is (shell/accept-edits.ts), not for the mode. */
      bySubcommands?: true;
    }
  | { behavior: 'deny'; reason: string; by: 'rule' | 'path_rule' | 'mode' }
  | {
      behavior: 'ask';
      reason: string;
      /**
       * Approved, it runs outside the sandbox: `requested` (dangerouslyDisableSandbox: only the
       * permission prompt may approve it, not a hook) or `excluded` (sandbox.excludedCommands).
       */
      unsandboxed?: 'requested' | 'excluded';
    };

/** Everything a verdict depends on. */
export interface PermissionQuery {
  tool: Tool;
  input: Record<string, unknown>;
  mode: PermissionMode;
  allow: PermissionRule[];
  deny: PermissionRule[];
  cwd: string;
  /** Extra working folders (`--add-dir`): acceptEdits covers them like the cwd. */
  directories?: string[];
  /**
   * For a shell tool: the folder its line starts in when an earlier call's `cd` left the shell elsewhere than `cwd`
   * (a real path inside the working folders, shell/shell-cwd.ts). The line's relative paths resolve against it; rules
   * and the working folders stay anchored at `cwd`.
   */
  shellCwd?: string;
  /** For a shell tool: the sandbox settings that bear on it (absent: none do). */
  sandbox?: ShellSandbox;
  /**
   * For a tool that edits files: its target's real location as recorded before the check (judged-path.ts), which the
   * tool then writes and nowhere else. The check judges this place and does not resolve the path again: a link
   * swapped in between would have it judge one file while the tool writes another.
   */
  judged?: string;
}

/** The member each built-in tool that takes a path reads it from. */
const PATH_MEMBERS: Record<string, string> = {
  Read: 'file_path',
  Write: 'file_path',
  Edit: 'file_path',
  NotebookEdit: 'notebook_path',
  Grep: 'path',
  Glob: 'path',
};

/**
 * The path a call of `toolName` names, if any: a built-in tool's own member only (the input schema lets unknown
 * members through, and a decoy `file_path` beside NotebookEdit's `notebook_path` must not be what the checks judge);
 * another tool's first of `file_path`, `path`, `notebook_path`.
 */
export function targetPath(input: Record<string, unknown>, toolName: string): string | undefined {
  const own = Object.hasOwn(PATH_MEMBERS, toolName) ? PATH_MEMBERS[toolName] : undefined;
  const candidates = own === undefined ? [input.file_path, input.path, input.notebook_path] : [input[own]];
  return candidates.find((v): v is string => typeof v === 'string');
}

/** True when a rule with a specifier covers this (non-Bash) call. */
function specifierMatches(
  rule: PermissionRule,
  toolName: string,
  input: Record<string, unknown>,
  cwd: string,
  judged: string | undefined,
): boolean {
  if (rule.specifier === undefined || rule.specifier === '*') return true;
  const target = targetPath(input, toolName);
  if (target !== undefined) return pathRuleMatches(rule.specifier, target, cwd, judged);
  if (typeof input.url === 'string') return domainRuleMatches(rule.specifier, input.url);
  return false;
}

/** The file tools whose path-scoped deny rules Claude Code applies before any permission surface. */
const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'NotebookEdit']);

/** True when `rule` denies a file tool's call by its path (not the whole tool). */
function isPathScoped(rule: PermissionRule, toolName: string, input: Record<string, unknown>): boolean {
  return (
    FILE_TOOLS.has(toolName) &&
    rule.specifier !== undefined &&
    rule.specifier !== '*' &&
    targetPath(input, toolName) !== undefined
  );
}

/**
 * For a tool that reads many files (Grep, Glob), the Read deny rules that bind it as one check:
 * the rule that protects a file, or undefined; no function when no such rule is set.
 */
export function readDeniedFor(
  toolName: string,
  deny: PermissionRule[],
  cwd: string,
): ((file: string, judged?: string) => string | undefined) | undefined {
  const rules = deny.filter(
    (rule) => toolNameMatches(rule.tool, toolName, true) && rule.specifier !== undefined && rule.specifier !== '*',
  );
  if (!rules.length) return undefined;
  return (file, judged) => {
    const rule = rules.find((r) => pathRuleMatches(r.specifier!, file, cwd, judged));
    return rule && formatRule(rule);
  };
}

/**
 * Why an edit of a file a Read deny rule protects is not run by acceptEdits alone: its answer (a string not found,
 * the file's text in `tool_use_result`) would tell what the rule hides.
 */
function readDeniedEdit(query: PermissionQuery): string | undefined {
  const { tool, input, deny, cwd } = query;
  const file = targetPath(input, tool.name);
  const rule = file === undefined ? undefined : readDeniedFor('Read', deny, cwd)?.(file, query.judged);
  return rule && `${file} is protected from reading by the rule ${rule}, and an edit's answer would tell what it holds`;
}

/** The rule-and-mode verdict for one call, before hooks and callbacks. */
export async function checkPermission(query: PermissionQuery): Promise<PermissionVerdict> {
  const verdict = await ruleVerdict(query);
  const { tool, input, sandbox } = query;
  if (!tool.shell || typeof input.command !== 'string' || !sandbox?.confining) return verdict;
  return sandboxVerdict(verdict, query.mode, sandbox, input);
}

/**
 * True when a Bash line is only file commands acceptEdits runs in the working folders (mkdir, touch, rm, rmdir, mv, cp,
 * sed -i), as Claude Code 2.1.332 does, and the check is sure of every operand (shell/accept-edits.ts); anything else
 * goes on to ask.
 */
async function fileCommands(query: PermissionQuery): Promise<boolean> {
  const { cwd, deny, input } = query;
  const { acceptEditsRefusal } = await import('./shell/accept-edits.ts');
  const scope = {
    cwd: query.shellCwd ?? cwd,
    folders: workingFolders(cwd, query.directories),
    readDenied: readDeniedFor('Read', deny, cwd),
  };
  return (await acceptEditsRefusal(input.command as string, scope)) === undefined;
}

/** What the rules and the check say of one call before the mode is applied; `denied` ends the check. */
interface CallFacts {
  denied?: PermissionVerdict;
  readOnly: boolean;
  allowed: boolean;
  unsure?: string;
  /** A read-only call that reads outside the working folders: asked, not run on its own. */
  outside?: string;
}

type RulesOf = (rules: PermissionRule[], family?: boolean) => PermissionRule[];

/** A Bash line's facts, from its parse (the shell check loads with the first Bash call, not at start-up). */
async function shellCallFacts(query: PermissionQuery, mine: RulesOf): Promise<CallFacts> {
  const { input, deny, cwd } = query;
  const { shellFacts } = await import('./shell/facts.ts');
  const facts = await shellFacts(input.command as string, {
    allow: mine(query.allow),
    deny: mine(deny, true),
    readDeny: deny.filter((r) => r.tool === 'Read' && r.specifier),
    cwd,
    ...(query.shellCwd !== undefined ? { start: query.shellCwd } : {}),
    folders: workingFolders(cwd, query.directories),
  });
  if (facts.denied)
    return { denied: { behavior: 'deny', reason: facts.denied, by: 'rule' }, readOnly: false, allowed: false };
  return { readOnly: facts.readOnly, allowed: facts.allowed, unsure: facts.unsure, outside: facts.outside };
}

/** Another tool's facts: its deny and allow rules, its own read-only judgment, the folders it reads. */
async function toolCallFacts(query: PermissionQuery, mine: RulesOf): Promise<CallFacts> {
  const { tool, input, cwd, judged } = query;
  const denied = mine(query.deny, true).find((rule) => specifierMatches(rule, tool.name, input, cwd, judged));
  if (denied) {
    const by = isPathScoped(denied, tool.name, input) ? 'path_rule' : 'rule';
    const reason = `Permission to use ${tool.name} was denied by the rule ${formatRule(denied)}`;
    return { denied: { behavior: 'deny', reason, by }, readOnly: false, allowed: false };
  }
  // A tool's own claim to be read-only (an MCP server's readOnlyHint) is not the check's judgment: it asks.
  const readOnly = tool.readOnlyClaimed !== true && (await tool.isReadOnly(input));
  const outside = readOnly ? outsideFolders(tool.name, input, cwd, query.directories, judged) : undefined;
  const allowed =
    mine(query.allow).some((rule) => specifierMatches(rule, tool.name, input, cwd, judged)) ||
    (tool.name === 'WebFetch' && typeof input.url === 'string' && isPreapprovedUrl(input.url));
  return { readOnly, allowed, outside };
}

/** The verdict without the sandbox's settings. */
async function ruleVerdict(query: PermissionQuery): Promise<PermissionVerdict & { unsure?: true }> {
  const { tool, input, mode, cwd } = query;
  const shell = tool.shell === true && typeof input.command === 'string';
  const mine: RulesOf = (rules, family = false) =>
    rules.filter((rule) => toolNameMatches(rule.tool, tool.name, family));
  const facts = shell ? await shellCallFacts(query, mine) : await toolCallFacts(query, mine);
  if (facts.denied) return facts.denied;
  const { readOnly, allowed, unsure, outside } = facts;
  if (mode === 'plan' && !readOnly) {
    return {
      behavior: 'deny',
      reason: `${tool.name} was not run: in plan mode nothing that changes files or runs commands executes`,
      by: 'mode',
    };
  }
  if (unsure)
    return mode === 'dontAsk'
      ? { behavior: 'deny', reason: unsure, by: 'mode', unsure: true }
      : { behavior: 'ask', reason: unsure, unsure: true };
  // As Claude Code (2.1.77 on): bypassPermissions still asks before an edit of configuration that makes programs
  // run (.git/, .claude/, .vscode/, shell start-up files ...); the OS sandbox holds Bash to the same, not the tools.
  const guarded = mode === 'bypassPermissions' && !allowed && tool.editsFiles ? protectedTarget(query) : undefined;
  if (guarded !== undefined) return { behavior: 'ask', reason: `${tool.name} needs approval: ${guarded}` };
  if (
    mode === 'acceptEdits' &&
    shell &&
    !allowed &&
    !(readOnly && outside === undefined) &&
    (await fileCommands(query))
  )
    return { behavior: 'allow', sandbox: 'workspace', bySubcommands: true };
  if (allowed || mode === 'bypassPermissions' || (readOnly && outside === undefined)) {
    const byCheck = mode === 'plan' || (readOnly && outside === undefined && !allowed && mode !== 'bypassPermissions');
    return { behavior: 'allow', sandbox: byCheck ? 'read-only' : 'workspace' };
  }
  if (readOnly && outside !== undefined) {
    const reason =
      `${tool.name} needs approval: ${outside} is outside the working folders ` +
      `(${workingFolders(cwd, query.directories).join(', ')}); add its folder with --add-dir or allow it with a rule`;
    return mode === 'dontAsk' ? { behavior: 'deny', reason, by: 'mode' } : { behavior: 'ask', reason };
  }
  if (mode === 'acceptEdits' && tool.editsFiles) {
    const why = readDeniedEdit(query) ?? editNeedsApproval(query);
    if (why === undefined) return { behavior: 'allow', sandbox: 'workspace' };
    return { behavior: 'ask', reason: `${tool.name} needs approval: ${why}` };
  }
  const reason =
    `Permission to use ${tool.name} has not been granted (permission mode "${mode}"). ` +
    `Allow it with --allowedTools "${tool.name}" or run with --permission-mode ` +
    `${tool.editsFiles ? 'acceptEdits' : 'bypassPermissions'}.`;
  return mode === 'dontAsk' ? { behavior: 'deny', reason, by: 'mode' } : { behavior: 'ask', reason };
}

/**
 * The sandbox's say on a Bash call the rules judged (Claude Code's settings, made safe where they
 * would weaken a guarantee, see docs/security.md):
 * - `dangerouslyDisableSandbox: true` (when allowUnsandboxedCommands is not false) always asks:
 *   no rule, mode or hook runs a command outside the sandbox, only an answer to this very call;
 *   plan and dontAsk refuse it.
 * - a line of `excludedCommands` runs outside when a rule, the mode or an answer approved it; one
 *   the check let through as read-only stays in the read-only sandbox (nobody approved it).
 * - `autoAllowBashIfSandboxed` approves what would be asked, in the workspace sandbox, unless a
 *   safety check (what the line runs cannot be known) asked.
 */
async function sandboxVerdict(
  verdict: PermissionVerdict & { unsure?: true },
  mode: PermissionMode,
  sandbox: ShellSandbox,
  input: Record<string, unknown>,
): Promise<PermissionVerdict> {
  const { unsure, ...plain } = verdict;
  if (verdict.behavior === 'deny' && verdict.by !== 'mode') return plain;
  if (input.dangerouslyDisableSandbox === true && sandbox.allowUnsandboxed) {
    const reason =
      'Bash asks to run outside the sandbox (dangerouslyDisableSandbox): only an answer to this call can approve it';
    if (mode === 'plan' || mode === 'dontAsk') return { behavior: 'deny', reason, by: 'mode' };
    return { behavior: 'ask', reason, unsandboxed: 'requested' };
  }
  if (mode === 'plan') return plain;
  if (
    sandbox.excluded.length &&
    (await (await import('./shell/excluded.ts')).isExcludedLine(input.command as string, sandbox.excluded))
  ) {
    if (verdict.behavior === 'allow')
      return verdict.sandbox === 'read-only' ? plain : { behavior: 'allow', sandbox: 'unsandboxed' };
    return verdict.behavior === 'ask' ? { behavior: 'ask', reason: verdict.reason, unsandboxed: 'excluded' } : plain;
  }
  if (sandbox.autoAllow && !unsure && verdict.behavior !== 'allow') return { behavior: 'allow', sandbox: 'workspace' };
  return plain;
}

/** The working folders (cwd and `--add-dir`), real paths. */
export function workingFolders(cwd: string, directories: readonly string[] = []): string[] {
  return [cwd, ...directories].map((dir) => realPath(expandPath(cwd, dir)));
}

/**
 * The path a read-only file tool names when it is outside the working folders (after `~` and
 * symlinks). Glob's pattern counts too: an absolute one, or one with `..`, reaches where its fixed
 * part leads (a `..` after a wildcard could lead anywhere: the pattern itself is returned).
 */
function outsideFolders(
  toolName: string,
  input: Record<string, unknown>,
  cwd: string,
  directories?: string[],
  judged?: string,
): string | undefined {
  const folders = workingFolders(cwd, directories);
  // The place the tool will read (judged-path.ts): outside, whatever the path resolves to now.
  if (judged !== undefined && !folders.some((dir) => isInside(judged, dir))) return judged;
  const outside = (target: string): string | undefined => {
    const file = realPath(expandPath(cwd, target));
    return folders.some((dir) => isInside(file, dir)) ? undefined : file;
  };
  const target = targetPath(input, toolName);
  // Every path member is judged, not only the first: Grep reads `path`, and an extra `file_path` (unknown members
  // pass the input schema) must not stand in for it.
  const members = [input.file_path, input.path, input.notebook_path].filter((v): v is string => typeof v === 'string');
  const found = members.map(outside).find((file) => file !== undefined);
  if (found !== undefined || toolName !== 'Glob' || typeof input.pattern !== 'string') return found;
  const parts = input.pattern.split('/');
  const wild = parts.findIndex((part) => /[*?[{]/.test(part));
  if (wild !== -1 && parts.slice(wild).includes('..')) return input.pattern;
  const fixed = (wild === -1 ? parts : parts.slice(0, wild)).join('/') || '.';
  return outside(path.isAbsolute(fixed) || fixed.startsWith('~') ? fixed : path.join(target ?? '.', fixed));
}

/** Why acceptEdits does not cover this edit (outside the working folders, or protected), if it does not. */
function editNeedsApproval(query: PermissionQuery): string | undefined {
  const { tool, input, cwd } = query;
  const target = targetPath(input, tool.name);
  if (target === undefined) return undefined;
  const lexical = expandPath(cwd, target);
  const file = query.judged ?? realPath(lexical);
  const folders = workingFolders(cwd, query.directories);
  if (!folders.some((dir) => isInside(file, dir))) {
    const via = file === lexical ? '' : ` (${lexical} leads there)`;
    return `${file}${via} is outside the working folders (${folders.join(', ')}); add its folder with --add-dir`;
  }
  return protectedTarget(query);
}

/** Why the target of an edit is configuration that can make programs run (through links too), if it is. */
function protectedTarget(query: PermissionQuery): string | undefined {
  const { tool, input, cwd } = query;
  const target = targetPath(input, tool.name);
  if (target === undefined) return undefined;
  const lexical = expandPath(cwd, target);
  const protectedWhy = protectedReason(query.judged ?? realPath(lexical)) ?? protectedReason(lexical);
  return protectedWhy === undefined ? undefined : `${target}: ${protectedWhy}`;
}
