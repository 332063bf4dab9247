/**
 * `agentpipe sandbox doctor [--json]`: runs the sandbox's hostile probes with the sandbox as
 * configured (`--sandbox`, `--settings` and the settings files' `sandbox` blocks) and prints which
 * held; exit 1 when one escaped or the sandbox cannot confine commands here.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { sandboxLayers } from '../sandbox/config.ts';
import { sessionSettings } from '../session/setting-sources.ts';

export function addSandboxCommand(program: Command, log: (line: string) => void): void {
  const sandbox = program.command('sandbox').description('the OS sandbox of the commands agentpipe starts');
  sandbox
    .command('doctor')
    .description('run hostile probes inside the sandbox as configured and print which held')
    .option('--json', 'print the report as JSON')
    .action(async (_flags: unknown, command: Command) => {
      // --sandbox, --settings and --cwd are the session flags of the program.
      const flags = command.optsWithGlobals<{
        json?: boolean;
        cwd?: string;
        settings?: string;
        sandbox?: 'auto' | 'required' | 'off';
      }>();
      const globals = flags;
      const cwd = path.resolve(globals.cwd ?? process.cwd());
      const { runDoctor, formatDoctor } = await import('../sandbox/doctor.ts');
      // The layers a session in `cwd` would apply: an untrusted folder's own files are named and left out.
      const layers = sandboxLayers(
        sessionSettings(
          { settingSources: ['user', 'project', 'local'], settings: flags.settings, trustProject: false },
          cwd,
          (line) => log(`agentpipe: warning: ${line}`),
        ).layers,
      );
      const report = await runDoctor({
        mode: flags.sandbox,
        layers,
        warn: (line) => log(`agentpipe: warning: ${line}`),
      });
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctor(report));
      process.exitCode = report.confined && report.probes.every((p) => p.held) ? 0 : 1;
    });
}
