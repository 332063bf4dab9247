/** The wire contract, re-exported. */
export type * from './types.ts';
export type * from './control.ts';
export { newUuid, newApiId } from './ids.ts';
export { apiUsage, emptyResultUsage } from './usage.ts';
