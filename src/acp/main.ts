/** `agentpipe acp [options]`: flags of the model and permissions, then the ACP server on stdio. */
import { Command, Option } from 'commander';
import type { QueryOptions } from '../sdk/types.ts';

export async function runAcp(argv: string[]): Promise<void> {
  const program = new Command('agentpipe acp')
    .description('Serve the Agent Client Protocol on stdio (for editors such as Zed)')
    .option('--model <model>', 'model: scripted, a Claude model, or a model of the --base-url server')
    .addOption(new Option('--provider <name>', 'force a provider').choices(['scripted', 'anthropic', 'openai']))
    .option('--base-url <url>', 'OpenAI-compatible server (Ollama, vLLM, llama.cpp)')
    .option('--script <file>', 'script of the scripted model')
    .addOption(new Option('--permission-mode <mode>', 'initial permission mode of new sessions').choices(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk']))
    .option('--allowedTools, --allowed-tools <rules...>', 'permission rules that allow without asking')
    .option('--no-partial-messages', 'send whole blocks instead of streamed chunks')
    .configureOutput({ outputError: (text, write) => write(`agentpipe: ${text.trim()} (see agentpipe acp --help)\n`) });
  program.parse(argv, { from: 'user' });
  const flags = program.opts();
  const path = await import('node:path');
  const options: QueryOptions = {
    model: flags.model, provider: flags.provider, baseUrl: flags.baseUrl, script: flags.script ? path.resolve(flags.script) : undefined,
    permissionMode: flags.permissionMode, allowedTools: flags.allowedTools, includePartialMessages: flags.partialMessages !== false,
    stderr: (line) => process.stderr.write(`${line}\n`),
  };
  const { serveAcp } = await import('./server.ts');
  await serveAcp(options, (line) => process.stderr.write(`${line}\n`));
}
