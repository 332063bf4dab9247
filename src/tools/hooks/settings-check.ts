/**
 * What in a settings object is said and left out rather than stopping the start, as Claude Code 2.1.332 does: a
 * permission rule that is malformed (`Bash(npm test:*`, `bash`, `Read()`) is skipped with a warning naming the file,
 * the list and the rule, and the rest of the file is in effect; a key agentpipe does not know (`modle`: did you mean
 * model?) and a Claude Code setting agentpipe does not apply (`env`, `model`) are named, not silently ignored (Claude
 * Code itself says nothing of unknown keys). A rule naming a tool that does not exist is the session's to say: it
 * knows the tools (`unknownToolWarnings`).
 */
import { nearest } from '../../process/nearest.ts';

/**
 * The keys agentpipe applies from a settings file. `trustedFolders` is agentpipe's own (`agentpipe trust` writes it in
 * the user's file; session/trust.ts reads it from there only, so a project's copy gains nothing but is not a mistake).
 */
const APPLIED = [
  'hooks',
  'permissions',
  'mcpServers',
  'sandbox',
  'trustedFolders',
  'outputStyle',
  '$schema',
  // false: no thinking in Claude Code's default request (agent/request.ts).
  'alwaysThinkingEnabled',
];
/** The keys of `permissions` agentpipe applies. */
const APPLIED_PERMISSIONS = ['allow', 'deny'];
/** Claude Code's other settings: known, kept (`get_settings` shows them), not applied. */
const CLAUDE_CODE_ONLY = [
  'apiKeyHelper',
  'attribution',
  'autoCompactEnabled',
  'autoUpdatesChannel',
  'awsAuthRefresh',
  'awsCredentialExport',
  'cleanupPeriodDays',
  'companyAnnouncements',
  'disableAllHooks',
  'allowManagedHooksOnly',
  'allowedMcpServers',
  'deniedMcpServers',
  'disabledMcpjsonServers',
  'effortLevel',
  'enableAllProjectMcpServers',
  'enabledMcpjsonServers',
  'enabledPlugins',
  'env',
  'extraKnownMarketplaces',
  'fileSuggestion',
  'forceLoginMethod',
  'forceLoginOrgUUID',
  'includeCoAuthoredBy',
  'includeGitInstructions',
  'language',
  'model',
  'otelHeadersHelper',
  'plansDirectory',
  'promptSuggestionEnabled',
  'respectGitignore',
  'showThinkingSummaries',
  'showTurnDuration',
  'spinnerTipsEnabled',
  'spinnerVerbs',
  'statusLine',
  'terminalProgressBarEnabled',
  'theme',
];
const CLAUDE_CODE_PERMISSIONS = ['ask', 'defaultMode', 'additionalDirectories', 'disableBypassPermissionsMode'];
/** Where agentpipe takes what some of those settings say. */
const INSTEAD: Record<string, string> = {
  model: '--model',
  apiKeyHelper: '--api-key-helper',
  effortLevel: '--effort',
  env: 'the environment agentpipe starts in',
  'permissions.defaultMode': '--permission-mode',
  'permissions.additionalDirectories': '--add-dir',
};

/** One line per key of `settings` (and of its `permissions`) that agentpipe does not apply; `label` names the file. */
export function settingsKeyWarnings(settings: Record<string, unknown>, label: string): string[] {
  const permissions = settings.permissions;
  const nested =
    typeof permissions === 'object' && permissions !== null && !Array.isArray(permissions)
      ? keyWarnings(Object.keys(permissions), APPLIED_PERMISSIONS, CLAUDE_CODE_PERMISSIONS, 'permissions.')
      : { unknown: [], unapplied: [] };
  const top = keyWarnings(Object.keys(settings), APPLIED, CLAUDE_CODE_ONLY, '');
  const unapplied = [...top.unapplied, ...nested.unapplied];
  const lines = [...top.unknown, ...nested.unknown].map((line) => `${label}: ${line}`);
  if (unapplied.length) {
    const instead = unapplied.filter((key) => INSTEAD[key]).map((key) => `${key}: ${INSTEAD[key]}`);
    const are = unapplied.length > 1 ? 'are Claude Code settings' : 'is a Claude Code setting';
    lines.push(
      `${label}: ${unapplied.join(', ')} ${are} agentpipe does not apply, ignored` +
        `${instead.length ? ` (instead, ${instead.join('; ')})` : ''}`,
    );
  }
  return lines;
}

function keyWarnings(
  keys: string[],
  applied: readonly string[],
  known: readonly string[],
  prefix: string,
): { unknown: string[]; unapplied: string[] } {
  const unknown: string[] = [];
  const unapplied: string[] = [];
  for (const key of keys) {
    if (applied.includes(key)) continue;
    if (known.includes(key)) unapplied.push(`${prefix}${key}`);
    else {
      const near = nearest(key, [...applied, ...known]);
      unknown.push(`unknown key "${prefix}${key}"${near ? ` (did you mean ${prefix}${near}?)` : ''}, ignored`);
    }
  }
  return { unknown, unapplied };
}

/** What is wrong with a permission rule's form, in Claude Code's words, or undefined when it is well formed. */
export function ruleProblem(rule: string): string | undefined {
  const text = rule.trim();
  if (!text) return 'a permission rule cannot be empty';
  const match = /^([^()]+?)(?:\((.*)\))?$/s.exec(text);
  if (!match)
    return (
      'malformed Tool(content) rule: rules take the form Tool or Tool(content) and must end at the closing ")"; ' +
      'parentheses inside the content are literal'
    );
  // Group 1 always takes part in a match (one character at least); group 2 only with the parentheses.
  const tool = match[1] ?? '';
  const content = match[2];
  if (content !== undefined && content.trim() === '')
    return `empty parentheses: use ${tool.trim()} without them, or give a pattern (${tool.trim()}(some-pattern))`;
  if (!tool.includes('_') && tool[0] !== tool[0]!.toUpperCase())
    return `tool names start with an uppercase letter (${tool[0]!.toUpperCase()}${tool.slice(1)})`;
  if (tool.trim() === 'Bash' && content?.trim() === ':*') return 'the prefix before :* cannot be empty (Bash(npm *))';
  return undefined;
}

/**
 * Tools a rule may name that are not among the session's tools when the settings are read: added later (Task, the
 * structured output tool, MCP resources), only with some providers (WebSearch), or named by a deny rule's family.
 */
const RULE_ONLY_TOOLS = [
  'Task',
  'WebSearch',
  'MultiEdit',
  'NotebookRead',
  'StructuredOutput',
  'ListMcpResourcesTool',
  'ReadMcpResourceTool',
];

/** A settings layer's rules and where they came from. */
interface RuleLayer {
  file?: string;
  permissions: { allow: string[]; deny: string[] };
}

/**
 * One line per rule of the settings layers whose tool is none of `tools` (Claude Code: "matches no known tool — check
 * for typos"), with the nearest tool name. MCP tools (`mcp__…`) and patterns are not checked: servers start later.
 */
export function unknownToolWarnings(
  layers: readonly RuleLayer[],
  sessionTools: ReadonlyArray<{ name: string }>,
): string[] {
  const tools = [...sessionTools.map((t) => t.name), ...RULE_ONLY_TOOLS];
  const lines: string[] = [];
  for (const layer of layers) {
    for (const behavior of ['allow', 'deny'] as const) {
      for (const rule of layer.permissions[behavior]) {
        const tool = /^[^(]*/.exec(rule.trim())![0].trim();
        if (tools.includes(tool) || tool.startsWith('mcp__') || tool.includes('*')) continue;
        const near = nearest(tool, tools);
        lines.push(
          `${layer.file ?? '--settings'}: permission ${behavior} rule "${rule}" matches no known tool` +
            `${near ? ` (did you mean ${near}?)` : ' — check for typos'}`,
        );
      }
    }
  }
  return lines;
}
