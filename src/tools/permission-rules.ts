/**
 * Permission rules as in Claude Code: `Tool` or `Tool(specifier)`. `Bash(git log:*)` (argv
 * prefix), `Bash(npm test)` (exact), `Bash(echo *)` (glob over the words), `Read(./src/**)`
 * (path glob), `WebFetch(domain:x)`, `mcp__server__*` (tool-name glob). Bash specifiers are
 * matched against each parsed simple command, never against the raw line; path specifiers
 * against resolved paths (`~` expanded, symlinks resolved).
 */
import path from 'node:path';
import { domainToASCII } from 'node:url';
import { expandPath, realPath, resolvedPath } from './paths.ts';
import { isInside } from '../process/paths.ts';

/** One parsed rule. */
export interface PermissionRule {
  tool: string;
  specifier?: string;
}

/** Splits `--allowedTools` style lists ("Bash(git log:*),Read" or space separated) into rules. */
export function parseRules(values: string[] | undefined): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const value of values ?? []) {
    for (const item of splitTopLevel(value)) {
      const m = /^([^()]+?)(?:\((.*)\))?$/.exec(item.trim());
      if (m) rules.push({ tool: m[1]!.trim(), specifier: m[2]?.trim() || undefined });
    }
  }
  return rules;
}

/** Splits on commas and spaces that are not inside parentheses. */
function splitTopLevel(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if ((ch === ',' || ch === ' ') && depth === 0) {
      if (current.trim()) out.push(current);
      current = '';
    } else current += ch;
  }
  if (current.trim()) out.push(current);
  return out;
}

/** Renders a rule back to its text form. */
export function formatRule(rule: PermissionRule): string {
  return rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`;
}

/**
 * Deny rules named after one tool cover its siblings: Read covers the tools that read files,
 * Edit the ones that edit (so `Read(./.env)` also stops Grep). Allow rules name tools exactly.
 */
const FAMILIES: Record<string, string[]> = {
  Read: ['Read', 'Grep', 'Glob', 'NotebookRead'],
  Edit: ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'],
};

/** True when the rule's tool part names this tool (`family`: its siblings too, for deny rules). */
export function toolNameMatches(pattern: string, name: string, family = false): boolean {
  if (pattern === name || (family && FAMILIES[pattern]?.includes(name))) return true;
  if (pattern.includes('*')) return path.matchesGlob(name, pattern);
  // `mcp__server` covers every tool of that server.
  return pattern.startsWith('mcp__') && name.startsWith(`${pattern}__`);
}

/** True when the rule names the whole tool (no specifier), so the tool is hidden when denied. */
export function isWholeToolRule(rule: PermissionRule, name: string): boolean {
  return (rule.specifier === undefined || rule.specifier === '*') && toolNameMatches(rule.tool, name);
}

/** True when a Bash specifier covers one simple command's words. */
export function commandRuleMatches(specifier: string, argv: string[]): boolean {
  const line = argv.join(' ');
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2).trim().split(/\s+/);
    return prefix.every((word, i) => argv[i] === word);
  }
  if (specifier.includes('*'))
    return new RegExp(`^${specifier.trim().split('*').map(escapeRegex).join('.*')}$`, 's').test(line);
  return line === specifier.trim().replace(/\s+/g, ' ');
}

const escapeRegex = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/**
 * True when a path specifier covers `target` (as the tool was given it). Both sides are compared
 * as written (resolved against `cwd`) and with symlinks resolved (with `..` folded as text, as a
 * file tool opens it, and as the kernel resolves it, a link before a `..` followed first), so a
 * link cannot dodge a rule. A specifier without glob characters also covers everything under it,
 * and one ending in `/**` the folder it names. `judged`: the target's real location as already recorded (a file
 * tool's write, judged-path.ts), which stands in for every resolution so the rule judges the file the tool will write.
 */
export function pathRuleMatches(specifier: string, target: string, cwd: string, judged?: string): boolean {
  const spec = specifier.startsWith('//') ? specifier.slice(1) : specifier;
  const pattern = expandPath(cwd, spec);
  const patterns = [pattern, realPattern(pattern)];
  const lexical = expandPath(cwd, target);
  const files = judged === undefined ? [lexical, realPath(lexical), resolvedPath(cwd, target)] : [lexical, judged];
  return patterns.some((p) =>
    files.some(
      (f) =>
        f === p ||
        path.matchesGlob(f, p) ||
        (!/[*?[{]/.test(p) && isInside(f, p)) ||
        // `dir/**` covers the folder itself too: reading it (a search, a listing) reads only what the rule protects.
        (p.endsWith(`${path.sep}**`) && f === p.slice(0, -3)),
    ),
  );
}

/** The pattern with symlinks resolved in its glob-free leading folders. */
function realPattern(pattern: string): string {
  const parts = pattern.split(path.sep);
  const firstGlob = parts.findIndex((p) => /[*?[{]/.test(p));
  if (firstGlob === -1) return realPath(pattern);
  return path.join(realPath(parts.slice(0, firstGlob).join(path.sep) || path.sep), ...parts.slice(firstGlob));
}

/**
 * True when a `WebFetch(domain:x)` specifier covers the URL's host, as Claude Code matches them:
 * `domain:example.com` is that host exactly, `domain:*.example.com` any host under it (not the
 * name itself), `domain:*` every host. The host is the one fetch connects to (WHATWG parsing:
 * credentials, path and query are not the host; lowercase; IDN as punycode); a trailing dot is
 * the same host. The rule's domain is normalised the same way, so `bücher.de` and
 * `xn--bcher-kva.de` are one rule. A specifier without `domain:` is read as a domain.
 */
export function domainRuleMatches(specifier: string, url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.+$/, '');
  } catch {
    return false;
  }
  const spec = specifier.replace(/^domain:/i, '').trim();
  if (spec === '*') return true;
  const wildcard = spec.startsWith('*.');
  const domain = asciiDomain(wildcard ? spec.slice(2) : spec);
  if (!domain || !host) return false;
  return wildcard ? host.endsWith(`.${domain}`) : host === domain;
}

/**
 * A rule's domain as URL parsing spells hosts (lowercase, punycode, no trailing dot); '' when it is not a host name.
 */
function asciiDomain(domain: string): string {
  if (!domain || /[/\\?#@:*\s]/.test(domain)) return '';
  return domainToASCII(domain).replace(/\.+$/, '');
}
