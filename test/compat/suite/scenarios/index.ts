/** Every scenario of the differential suite. */
import type { Scenario } from '../scenario.ts';
import {
  errorScenarios,
  hookScenarios,
  limitScenarios,
  permissionScenarios,
  sessionScenarios,
  streamScenarios,
  structuredScenarios,
} from './behaviour.ts';
import { mcpScenarios } from './mcp.ts';
import { sdkScenarios } from './sdk.ts';
import { toolScenarios } from './tools.ts';

export const scenarios: Scenario[] = [
  ...toolScenarios,
  ...permissionScenarios,
  ...hookScenarios,
  ...errorScenarios,
  ...streamScenarios,
  ...limitScenarios,
  ...sessionScenarios,
  ...structuredScenarios,
  ...mcpScenarios,
  ...sdkScenarios,
];
