/**
 * `agentpipe trust [DIR]`: a folder's own settings (`.agentpipe/settings.json`, `settings.local.json`,
 * `agents/*.md`: hooks, permission rules, MCP servers, agents) apply only once the user trusts it.
 * This records the folder (its real path) in `$AGENTPIPE_HOME/settings.json` (`trustedFolders`),
 * and says what its settings hold; `--list` shows the trusted folders, `--remove` forgets one.
 */
import { errorMessage } from '../process/errors.ts';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';

interface TrustFlags {
  list?: boolean;
  remove?: boolean;
}

export function addTrustCommand(program: Command, log: (line: string) => void): void {
  program
    .command('trust')
    .description(
      'trust a folder: its own settings (hooks, permission rules, MCP servers, agents in .agentpipe/) apply from now ' +
        'on, in it and the folders under it',
    )
    .argument('[dir]', 'the folder (default: the current folder)')
    .option('--list', 'list the trusted folders')
    .option('--remove', 'stop trusting the folder')
    .action(async (dir: string | undefined, flags: TrustFlags) => {
      try {
        await trustAction(dir, flags, log);
      } catch (error) {
        // A settings file that is not a JSON object, a home that cannot be written: one line, exit 1.
        fail(errorMessage(error), log);
      }
    });
}

async function trustAction(dir: string | undefined, flags: TrustFlags, log: (line: string) => void): Promise<void> {
  const trust = await import('../session/trust.ts');
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (flags.list) {
    if (dir !== undefined || flags.remove) return fail('--list takes no folder and no --remove', log);
    const folders = trust.trustedFolders();
    if (folders.length === 0) log('agentpipe trust: no trusted folders');
    for (const folder of folders) out(folder);
    return;
  }
  const target = path.resolve(dir ?? process.cwd());
  if (flags.remove) {
    const { folder, removed } = await trust.untrustFolder(target);
    if (!removed) return fail(`${folder} is not a trusted folder (agentpipe trust --list shows them)`, log);
    out(`no longer trusted: ${folder}`);
    if (trust.isTrustedFolder(folder))
      log(`agentpipe trust: note: ${folder} is still trusted, inside a trusted folder (agentpipe trust --list)`);
    return;
  }
  if (!existsSync(target) || !statSync(target).isDirectory()) return fail(`${target}: no such folder`, log);
  const { folder, added } = await trust.trustFolder(target);
  out(added ? `trusted: ${folder}` : `already trusted: ${folder}`);
  const { projectSettingsSummary } = await import('../session/setting-sources.ts');
  for (const [file, holds] of projectSettingsSummary(folder))
    log(`agentpipe trust: ${path.relative(folder, file) || file} now applies: ${holds}`);
}

function fail(message: string, log: (line: string) => void): void {
  log(`agentpipe trust: error: ${message}`);
  process.exitCode = 1;
}
