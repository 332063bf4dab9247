/**
 * What a wrapped CLI sends in no fixed order, put in one order before a replay compares a request with the tape.
 *
 * The Gemini CLI lists its agent skills (its built-in ones, the user's and the project's) in the order `glob()` found
 * their `SKILL.md` files, which differs from run to run: the `<available_skills>` block of its system instruction,
 * and the `activate_skill` tool's `(Available: 'a', 'b')` description and its `enum` of names. The model sees the
 * same set either way, so a replay compares the lists sorted. Nothing else is reordered: an order the model could
 * read meaning into stays a difference.
 */
import { mapStrings } from '../model/tape/scene.ts';
import { isRecord } from '../process/guards.ts';

/** The Gemini CLI's skill list in its system instruction (its `renderAgentSkills`). */
const SKILLS_BLOCK = /(<available_skills>\n)([\s\S]*?)(\n<\/available_skills>)/g;
/** One `<skill>` entry of that block. */
const SKILL_ENTRY = / {2}<skill>\n[\s\S]*?\n {2}<\/skill>/g;
/** The names in the `activate_skill` tool's description. */
const AVAILABLE_HINT = /\(Available: ('[^']*'(?:, '[^']*')*)\)/g;

const sorted = (items: string[]) => [...items].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The `<available_skills>` blocks of a text with their entries sorted (a block of another form is left as it is). */
export function sortSkillBlocks(text: string): string {
  if (!text.includes('<available_skills>')) return text;
  return text.replace(SKILLS_BLOCK, (whole, open: string, inner: string, close: string) => {
    const entries = inner.match(SKILL_ENTRY) ?? [];
    if (entries.join('\n') !== inner) return whole;
    return `${open}${sorted(entries).join('\n')}${close}`;
  });
}

/** The `activate_skill` declaration with its names sorted in the description and in the schema's `enum`. */
function sortSkillDeclaration(declaration: Record<string, unknown>): Record<string, unknown> {
  const out = { ...declaration };
  if (typeof out.description === 'string')
    out.description = out.description.replace(
      AVAILABLE_HINT,
      (_whole, names: string) => `(Available: ${sorted(names.split(', ')).join(', ')})`,
    );
  for (const key of ['parametersJsonSchema', 'parameters']) {
    const schema = out[key];
    if (!isRecord(schema) || !isRecord(schema.properties) || !isRecord(schema.properties.name)) continue;
    const name = schema.properties.name;
    if (!Array.isArray(name.enum) || !name.enum.every((v) => typeof v === 'string')) continue;
    out[key] = { ...schema, properties: { ...schema.properties, name: { ...name, enum: sorted(name.enum) } } };
  }
  return out;
}

/** A Gemini API request body with the Gemini CLI's unordered skill lists sorted (other bodies as they are). */
export function inOrderGemini(body: unknown): unknown {
  const texts = mapStrings(body, sortSkillBlocks);
  if (!isRecord(texts) || !Array.isArray(texts.tools)) return texts;
  const tools = texts.tools.map((tool: unknown) => {
    if (!isRecord(tool) || !Array.isArray(tool.functionDeclarations)) return tool;
    return {
      ...tool,
      functionDeclarations: tool.functionDeclarations.map((d: unknown) =>
        isRecord(d) && d.name === 'activate_skill' ? sortSkillDeclaration(d) : d,
      ),
    };
  });
  return { ...texts, tools };
}
