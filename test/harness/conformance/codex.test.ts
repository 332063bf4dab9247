/**
 * The conformance suite (common.ts) against the real `codex` CLI on its app-server protocol (the default of a codex
 * that has one) and a local fake of the Responses API, in a throwaway CODEX_HOME.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startResponsesServer, type ResponsesReply } from '../fakes/responses-api.ts';
import { driveHarness, harnessDirs } from '../helpers.ts';
import type { HarnessConfig } from '../../../src/harness/types.ts';
import { conformanceRun, runConformance, type ModelTurn } from './common.ts';

/** `turn` as a Responses API answer. */
function reply(turn: ModelTurn): ResponsesReply {
  switch (turn.kind) {
    case 'text':
      return { kind: 'text', text: turn.chunks.join(''), chunks: turn.chunks.length };
    case 'hang':
      return { kind: 'hang', text: turn.text };
    case 'shell':
      // A command that writes asks to run outside codex's own read-only sandbox (`require_escalated`), as codex's
      // instructions tell its models: once approved it runs there at once. Without the request codex runs an approved
      // command in its read-only sandbox first and retries outside only when it failed within 150 ms (codex 0.169,
      // unified exec's denial check), which a loaded machine misses ("Read-only file system").
      return {
        kind: 'call',
        name: 'exec_command',
        arguments: { cmd: turn.command, sandbox_permissions: 'require_escalated', justification: 'Run it?' },
      };
    case 'unauthorized':
      return { kind: 'status', status: 401, message: 'Incorrect API key provided' };
  }
}

/** A CODEX_HOME without retries, and the variables that keep codex in it, offline, on the app-server protocol. */
function codexEnv(home: string): Record<string, string> {
  writeFileSync(
    path.join(home, 'config.toml'),
    '[model_providers.agentpipe]\nrequest_max_retries = 0\nstream_max_retries = 0\n',
  );
  return { HOME: home, CODEX_HOME: home, CODEX_API_KEY: 'sk-fake', AGENTPIPE_CODEX_PROTOCOL: 'app-server' };
}

runConformance({
  name: 'codex',
  denial: /declined/,
  async start(script, config = {}) {
    const server = await startResponsesServer(script.map(reply));
    const { home, cwd } = harnessDirs('codex-conformance');
    const env = codexEnv(home);
    return conformanceRun({
      cwd,
      start: (more) =>
        driveHarness({ name: 'codex', cwd, baseUrl: server.baseUrl, model: 'fake-model', ...config, ...more }, env),
      modelRequests: () => server.modelRequests.map((r) => JSON.stringify(r.body)),
      closeFake: () => server.close(),
    });
  },
  async commandConfig(command) {
    const { home, cwd } = harnessDirs('codex-conformance-command');
    const driven = await driveHarness({ name: 'codex', cwd, command }, codexEnv(home));
    return { driven, close: () => driven.harness.close() };
  },
});
