/**
 * What a permission prompt shows, as `can_use_tool` carries it (Claude Code's fields) and as the SDK's `canUseTool`
 * callback receives it: one table of both names, read in both directions (the session asks its client with
 * `shownToWire`; the SDK's line engine hands a request to the callback with `shownFromWire`).
 */
import type { OutboundRequest } from './control.ts';

/** [wire name, the callback's name] of each optional field. */
export const PROMPT_SHOWN_FIELDS = [
  ['display_name', 'displayName'],
  ['description', 'description'],
  ['decision_reason', 'decisionReason'],
  ['decision_reason_type', 'decisionReasonType'],
  ['blocked_path', 'blockedPath'],
] as const;

type Field = (typeof PROMPT_SHOWN_FIELDS)[number];

/** The fields as `can_use_tool` names them. */
export type PromptShownWire = { [F in Field as F[0]]?: string };
/** Checked when compiling: every wire name is a field of the `can_use_tool` request type. */
type UnknownWireNames = Exclude<keyof PromptShownWire, keyof Extract<OutboundRequest, { subtype: 'can_use_tool' }>>;
export const WIRE_NAMES_CHECKED: [UnknownWireNames] extends [never] ? true : never = true;

/** The fields as the `canUseTool` callback's options name them. */
export type PromptShown = { [F in Field as F[1]]?: string };

/** The fields `shown` has, in the wire's names (absent ones stay absent). */
export function shownToWire(shown: PromptShown): PromptShownWire {
  const wire: PromptShownWire = {};
  for (const [wireName, name] of PROMPT_SHOWN_FIELDS) {
    const value = shown[name];
    if (value !== undefined) wire[wireName] = value;
  }
  return wire;
}

/** The fields a request has, in the callback's names (absent ones stay absent). */
export function shownFromWire(wire: PromptShownWire): PromptShown {
  const shown: PromptShown = {};
  for (const [wireName, name] of PROMPT_SHOWN_FIELDS) {
    const value = wire[wireName];
    if (value !== undefined) shown[name] = value;
  }
  return shown;
}
