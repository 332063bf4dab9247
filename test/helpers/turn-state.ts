/**
 * A harness translator's TurnState driven in-process: the stream it emits and the warnings it gives, collected, for
 * unit tests that feed a translator events (no CLI, no child process).
 */
import { UsageTracker } from '../../src/agent/usage.ts';
import { TurnState } from '../../src/harness/turn-state.ts';
import type { HarnessConfig, HarnessTurn } from '../../src/harness/types.ts';
import type { AgentMessage } from '../../src/messages/types.ts';

/** A harness config's defaults in tests: the default mode, no rules, no partial messages, warnings collected. */
export function configDefaults(warnings: string[]) {
  return {
    permissionMode: 'default',
    allowedTools: [],
    disallowedTools: [],
    includePartialMessages: false,
    warn: (line: string) => void warnings.push(line),
  } satisfies Partial<HarnessConfig>;
}

/** A TurnState of session `session-1`, its config overridden by `config`, with what it emits and warns collected. */
export function turnState(config: Partial<HarnessConfig> = {}) {
  const stream: AgentMessage[] = [];
  const warnings: string[] = [];
  const full: HarnessConfig = {
    name: 'codex',
    command: ['codex'],
    cwd: '/tmp',
    env: {},
    ...configDefaults(warnings),
    ...config,
  };
  const turn: HarnessTurn = {
    prompt: 'hi',
    signal: new AbortController().signal,
    emit: (message) => {
      stream.push(message);
      return Promise.resolve();
    },
    usage: new UsageTracker(),
    init: () => ({ type: 'system', subtype: 'init' }) as never,
    askPermission: () => Promise.resolve({ behavior: 'deny', message: 'no' }),
  };
  return { config: full, state: new TurnState(turn, full, 'session-1'), stream, warnings };
}
