/**
 * WebSearch, as in Claude Code: the search runs on Anthropic's servers (the Messages API's
 * `web_search_20250305` server tool) in a request of its own (`ModelProvider.webSearch`), and the
 * tool turns the answer's `web_search_tool_result` blocks into the SDK's `WebSearchOutput`.
 * agentpipe never makes up results: the session offers the tool only when its provider can run
 * that server tool (`isWebSearchAvailable`: Anthropic); with another provider a model that calls
 * it gets "No such tool available".
 */
import type { ModelProvider } from '../../model/types.ts';
import { objectSchema, requireString } from '../input.ts';
import { ToolInputError, toolUseError, type Tool, type ToolContext, type ToolResult } from '../types.ts';

/** The SDK's `WebSearchOutput`. */
export interface WebSearchOutput {
  query: string;
  results: Array<{ tool_use_id: string; content: Array<{ title: string; url: string }> } | string>;
  durationSeconds: number;
  searchCount?: number;
}

/** True when `provider` is Anthropic's and can run the server-side web search. */
export function isWebSearchAvailable(
  provider: ModelProvider,
): provider is ModelProvider & Required<Pick<ModelProvider, 'webSearch'>> {
  return provider.provider === 'anthropic' && typeof provider.webSearch === 'function';
}

/** What WebSearch uses of the calling agent. */
interface AgentParent {
  ctx: { provider: ModelProvider; model: string };
}

const domains = (input: Record<string, unknown>, key: string): string[] | undefined => {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((d) => typeof d !== 'string'))
    throw new ToolInputError(`The parameter \`${key}\` must be a list of domain names`);
  return value as string[];
};

/** WebSearch as the agent loop calls it (`callInAgent`, with the calling agent's provider). */
export type WebSearchTool = Tool & {
  callInAgent(input: Record<string, unknown>, context: ToolContext, parent: AgentParent): Promise<ToolResult>;
};

/** WebSearch; offered only where `isWebSearchAvailable` (see the file comment). */
export const webSearchTool: WebSearchTool = {
  name: 'WebSearch',
  description:
    'Searches the web and returns result titles and URLs for up-to-date information. Cite the sources you use ' +
    'as markdown links. ' +
    'allowed_domains / blocked_domains limit the results to, or keep them away from, some sites.',
  inputSchema: objectSchema(
    {
      query: { type: 'string', minLength: 2, description: 'The search query to use' },
      allowed_domains: {
        type: 'array',
        items: { type: 'string' },
        description: 'Only include search results from these domains',
      },
      blocked_domains: {
        type: 'array',
        items: { type: 'string' },
        description: 'Never include search results from these domains',
      },
    },
    ['query'],
  ),
  // Claude Code asks before searching, as before fetching.
  isReadOnly: () => false,
  async call(): Promise<ToolResult> {
    return toolUseError('WebSearch can only run inside an agent loop whose provider runs the web search');
  },
  async callInAgent(input, context, parent): Promise<ToolResult> {
    const query = requireString(input, 'query');
    const allowedDomains = domains(input, 'allowed_domains');
    const blockedDomains = domains(input, 'blocked_domains');
    if (allowedDomains?.length && blockedDomains?.length)
      return toolUseError('Cannot specify both allowed_domains and blocked_domains in the same request');
    const { provider, model } = parent.ctx;
    if (!isWebSearchAvailable(provider)) {
      return toolUseError(
        `WebSearch is not available with the ${provider.provider} provider: it needs Anthropic's server-side ` +
          `web search`,
      );
    }
    const started = Date.now();
    const blocks = await provider.webSearch({ model, query, allowedDomains, blockedDomains, signal: context.signal });
    const output = webSearchOutputOf(query, blocks, (Date.now() - started) / 1000);
    return { content: webSearchText(output), data: output };
  },
};

/**
 * The answer's content blocks (outside data, checked) → `WebSearchOutput`: text as strings, each search's hits as
 * {title, url}.
 */
export function webSearchOutputOf(query: string, blocks: unknown[], durationSeconds: number): WebSearchOutput {
  const results: WebSearchOutput['results'] = [];
  let searchCount = 0;
  let text = '';
  const flush = () => {
    if (text.trim()) results.push(text.trim());
    text = '';
  };
  for (const block of blocks) {
    if (typeof block !== 'object' || block === null) continue;
    const b = block as Record<string, unknown>;
    if (b.type === 'text' && typeof b.text === 'string') text += b.text;
    else if (b.type === 'server_tool_use') {
      flush();
      searchCount++;
    } else if (b.type === 'web_search_tool_result') {
      flush();
      const id = typeof b.tool_use_id === 'string' ? b.tool_use_id : '';
      if (Array.isArray(b.content)) {
        const hits = b.content.flatMap((hit: unknown) => {
          const h = hit as { title?: unknown; url?: unknown } | null;
          return h && typeof h.url === 'string'
            ? [{ title: typeof h.title === 'string' ? h.title : h.url, url: h.url }]
            : [];
        });
        results.push({ tool_use_id: id, content: hits });
      } else {
        const code = (b.content as { error_code?: unknown } | null)?.error_code;
        results.push(`Web search error: ${typeof code === 'string' ? code : 'unknown'}`);
      }
    }
  }
  flush();
  return { query, results, durationSeconds, searchCount };
}

/** What the model reads: the hits as links, the commentary, and Claude Code's reminder to cite. */
export function webSearchText(output: WebSearchOutput): string {
  const parts = output.results.map((r) =>
    typeof r === 'string' ? r : r.content.length ? `Links: ${JSON.stringify(r.content)}` : 'No links found.',
  );
  return (
    `Web search results for query: "${output.query}"\n\n${parts.join('\n\n')}\n\n` +
    'REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.'
  );
}
