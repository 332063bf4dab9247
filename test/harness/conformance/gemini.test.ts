/** The conformance suite (common.ts) against the real `gemini` CLI on a local fake of the Gemini API. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeGemini, type GeminiReply } from '../fakes/gemini-api.ts';
import { driveHarness, harnessDirs } from '../helpers.ts';
import type { HarnessConfig } from '../../../src/harness/types.ts';
import { conformanceRun, runConformance, type ModelTurn } from './common.ts';

/** `turn` as a streamGenerateContent answer. */
function reply(turn: ModelTurn): GeminiReply {
  switch (turn.kind) {
    case 'text':
      return { kind: 'text', chunks: turn.chunks };
    case 'hang':
      return { kind: 'hang', chunks: [turn.text] };
    case 'shell':
      return { kind: 'call', name: 'run_shell_command', args: { command: turn.command } };
    case 'unauthorized':
      return { kind: 'error', status: 401, message: 'API key not valid. Please pass a valid API key.' };
  }
}

/** A HOME with API-key auth and one attempt per request, and the variables that keep Gemini CLI in it. */
function geminiEnv(home: string): Record<string, string> {
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  mkdirSync(path.join(home, 'tmp'), { recursive: true });
  const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { maxAttempts: 1 } };
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  return { HOME: home, TMPDIR: path.join(home, 'tmp'), GEMINI_API_KEY: 'fake-key', GEMINI_CLI_TRUST_WORKSPACE: 'true' };
}

runConformance({
  name: 'gemini',
  denial: /run_shell_command/,
  noPermissionPrompt:
    'Gemini CLI run headless (-p) cannot ask: in the default mode it withholds its shell tool, in yolo it runs it',
  async start(script, config = {}) {
    const fake = await startFakeGemini(script.map(reply));
    const { home, cwd } = harnessDirs('gemini-conformance');
    const env = geminiEnv(home);
    return conformanceRun({
      cwd,
      start: (more) =>
        driveHarness({ name: 'gemini', cwd, baseUrl: fake.url, model: 'gemini-2.5-flash', ...config, ...more }, env),
      modelRequests: () => fake.chats().map((chat) => JSON.stringify(chat)),
      closeFake: () => fake.close(),
    });
  },
  async commandConfig(command) {
    const { home, cwd } = harnessDirs('gemini-conformance-command');
    const driven = await driveHarness({ name: 'gemini', cwd, command }, geminiEnv(home));
    return { driven, close: () => driven.harness.close() };
  },
});
