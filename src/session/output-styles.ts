/**
 * Output styles, as Claude Code 2.1.332 has them: Markdown files in the user's folder (`$AGENTPIPE_HOME/output-styles`,
 * where Claude Code reads `~/.claude/output-styles`) and the project's (`<cwd>/.agentpipe/output-styles`, where it
 * reads `.claude/output-styles`), each gated by its setting source as the settings files are (the project's only in a
 * trusted folder: setting-sources.ts). Frontmatter: `name` (default: the file name), `description`,
 * `keep-coding-instructions`; the body is the style's instructions. The settings key `outputStyle` chooses one; the
 * model gets it as Claude Code sends it ("# Output Style: <name>" and the instructions), in the system prompt. A
 * project's style is content from the repository, like its CLAUDE.md: prompt text, never a permission.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { errorCode, errorMessage } from '../process/errors.ts';
import { readRegularFile } from '../tools/regular-file.ts';
import { frontmatterOf } from './frontmatter.ts';
import { agentpipeHome } from './paths.ts';
import type { SettingSource, SettingsLayer } from './setting-sources.ts';

/** The style every session has: no instructions of its own. */
export const DEFAULT_STYLE = 'default';

/** One output style file. */
export interface OutputStyle {
  name: string;
  description: string;
  /** The instructions the model gets. */
  prompt: string;
  source: 'user' | 'project';
  /** Keeps agentpipe's own working instructions in the system prompt beside the style's. */
  keepCodingInstructions: boolean;
  file: string;
}

/** The largest style file read (as Claude Code caps a plugin's). */
const MAX_STYLE_BYTES = 1024 * 1024;

/** The user's output-styles folder (`initialize`'s `user_output_styles_dir`). */
export const userOutputStylesDir = (env: Record<string, string | undefined> = process.env): string =>
  path.join(agentpipeHome(env), 'output-styles');

/** The output-styles folder of a setting source (`local` has none). */
export function outputStylesFolder(
  source: SettingSource,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  if (source === 'user') return userOutputStylesDir(env);
  if (source === 'project') return path.join(cwd, '.agentpipe', 'output-styles');
  return undefined;
}

/** The style files of the applied sources, user ones first, each folder in name order. */
function styleFiles(
  sources: readonly SettingSource[],
  cwd: string,
  warn: (line: string) => void,
  env: Record<string, string | undefined>,
): Array<{ file: string; source: 'user' | 'project' }> {
  const out: Array<{ file: string; source: 'user' | 'project' }> = [];
  for (const source of (['user', 'project'] as const).filter((s) => sources.includes(s))) {
    const folder = outputStylesFolder(source, cwd, env)!;
    try {
      for (const name of readdirSync(folder)
        .filter((n) => n.toLowerCase().endsWith('.md'))
        .sort())
        out.push({ file: path.join(folder, name), source });
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        warn(`cannot read the output-styles folder ${folder}: ${errorMessage(error)}`);
    }
  }
  return out;
}

/** Parses one style file; throws a clear error when it is malformed. */
export async function parseOutputStyle(text: string, file: string, source: 'user' | 'project'): Promise<OutputStyle> {
  const { meta = {}, body } = await frontmatterOf(text);
  const fallback = path.basename(file).replace(/\.md$/i, '');
  if (meta.name !== undefined && meta.name !== null && typeof meta.name !== 'string' && typeof meta.name !== 'number')
    throw new Error('"name" must be a string');
  const name = meta.name === undefined || meta.name === null ? fallback : String(meta.name).trim();
  if (!name) throw new Error('"name" must not be empty');
  const keep = meta['keep-coding-instructions'];
  if (keep !== undefined && typeof keep !== 'boolean')
    throw new Error('"keep-coding-instructions" must be true or false');
  const description =
    typeof meta.description === 'string' && meta.description.trim()
      ? meta.description.trim()
      : `Custom ${fallback} output style`;
  return { name, description, prompt: body, source, keepCodingInstructions: keep === true, file };
}

/**
 * The styles of the applied sources, in the order Claude Code lists them (user, then project); a later file wins a
 * name both have. A file that cannot be read or parsed is skipped with a warning naming it. Never throws.
 */
export async function readOutputStyles(
  sources: readonly SettingSource[],
  cwd: string,
  warn: (line: string) => void,
  env: Record<string, string | undefined> = process.env,
): Promise<OutputStyle[]> {
  const byName = new Map<string, OutputStyle>();
  for (const { file, source } of styleFiles(sources, cwd, warn, env)) {
    try {
      const text = (await readRegularFile(file, MAX_STYLE_BYTES)).toString('utf8');
      const style = await parseOutputStyle(text, file, source);
      if (style.name === DEFAULT_STYLE) throw new Error(`"${DEFAULT_STYLE}" is the built-in style's name`);
      byName.delete(style.name);
      byName.set(style.name, style);
    } catch (error) {
      warn(`skipped the output style ${file}: ${errorMessage(error)}`);
    }
  }
  return [...byName.values()];
}

/** The style the settings choose (the last layer that names one), `default` when none does. */
export function chosenStyle(layers: readonly Pick<SettingsLayer, 'raw'>[]): string {
  let name = DEFAULT_STYLE;
  for (const layer of layers)
    if (typeof layer.raw.outputStyle === 'string' && layer.raw.outputStyle.trim()) name = layer.raw.outputStyle.trim();
  return name;
}

/** What the model gets of a style, in Claude Code's words. */
export const outputStyleSection = (style: OutputStyle): string => `# Output Style: ${style.name}\n${style.prompt}`;

/** A session's output styles: what it can choose from and the one in effect. */
export class SessionStyles {
  /** No style files: only `default`. */
  static readonly NONE = new SessionStyles([], DEFAULT_STYLE);
  readonly styles: readonly OutputStyle[];
  /** The style in effect (`default` when the chosen one is not there). */
  readonly active: OutputStyle | undefined;

  constructor(styles: readonly OutputStyle[], chosen: string, warn: (line: string) => void = () => undefined) {
    this.styles = styles;
    this.active = chosen === DEFAULT_STYLE ? undefined : styles.find((s) => s.name === chosen);
    if (chosen !== DEFAULT_STYLE && !this.active)
      warn(`outputStyle "${chosen}" is not one of this session's styles (${this.available.join(', ')}): using default`);
  }

  /** Reads the styles of the applied sources and takes the one the settings choose. */
  static async load(
    sources: readonly SettingSource[],
    cwd: string,
    layers: readonly Pick<SettingsLayer, 'raw'>[],
    warn: (line: string) => void,
    env: Record<string, string | undefined> = process.env,
  ): Promise<SessionStyles> {
    const chosen = chosenStyle(layers);
    const styles = await readOutputStyles(sources, cwd, warn, env);
    return styles.length || chosen !== DEFAULT_STYLE ? new SessionStyles(styles, chosen, warn) : SessionStyles.NONE;
  }

  /** The name in effect (`system/init.output_style`, `initialize.output_style`). */
  get name(): string {
    return this.active?.name ?? DEFAULT_STYLE;
  }

  /** The names a client may choose (`available_output_styles`): `default`, then the files' styles. */
  get available(): string[] {
    return [DEFAULT_STYLE, ...this.styles.map((s) => s.name)];
  }

  /** What the main agent's system prompt adds (none for `default`). */
  get section(): string | undefined {
    return this.active ? outputStyleSection(this.active) : undefined;
  }
}
