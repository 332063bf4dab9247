/** The differential suite's scenarios: a fake API's replies, a folder, and how each product is driven. */
import type { Options, Query, SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { Reply } from '../../model/fake-servers.ts';
import type { Replies } from './fake-api.ts';

/** What a scenario covers (the list); the report counts by area. */
export type Area =
  | 'tools'
  | 'permissions'
  | 'hooks'
  | 'callbacks'
  | 'control'
  | 'errors'
  | 'thinking'
  | 'partial'
  | 'interrupt'
  | 'sessions'
  | 'limits'
  | 'structured'
  | 'mcp'
  | 'stream'
  | 'subagents';

interface Common {
  /** Unique, `area/what`. */
  name: string;
  area: Area;
  /** Files of the working folder before the run. */
  files?: Record<string, string>;
  /**
   * Modification times (seconds since the epoch) set on those files before the run: what orders by time (Grep's and
   * Glob's newest-first lists) is then the scenario's, not the machine's timing.
   */
  mtimes?: Record<string, number>;
  /**
   * The fake API's replies in order, or a function of the working folder (tool inputs take absolute paths)
   * that returns them or a responder choosing a reply for each request.
   */
  replies: Reply[] | ((cwd: string) => Replies);
  /** Environment over the runner's (`{home}` in a value: the run's home folder). */
  env?: Record<string, string>;
}

/** A scenario through the CLI: `claude -p <args>` against `agentpipe -p <args>`. */
export interface CliScenario extends Common {
  kind: 'cli';
  /** Arguments after `-p` (the prompt included); stream-json with --verbose unless `output` says otherwise. */
  args: string[];
  output?: 'stream-json' | 'json' | 'text';
  /** Standard input (stream-json input lines, or a prompt). */
  stdin?: string;
  /** Runs before the compared run in the same folder and home (e.g. a first session to resume). */
  before?: { args: string[]; replies: Reply[] };
}

/** What an SDK scenario's `run` gets: a query on the product under test, with the suite's options merged. */
export interface SdkContext {
  cwd: string;
  query(prompt: string | AsyncIterable<SDKUserMessage>, options?: Options): Query;
  /** Every message of a query until it ends (a thrown error after the result is kept as `{error}`). */
  collect(q: Query): Promise<Array<SDKMessage | { error: string }>>;
  /** Adds a message (or another observation) to the compared stream, for scenarios that iterate themselves. */
  keep(item: SDKMessage | Record<string, unknown>): void;
}

/** A scenario through the official Agent SDK driving each product's CLI. */
export interface SdkScenario extends Common {
  kind: 'sdk';
  /** Drives the query and returns what is compared besides the messages it collected. */
  run(ctx: SdkContext): Promise<unknown>;
}

export type Scenario = CliScenario | SdkScenario;
