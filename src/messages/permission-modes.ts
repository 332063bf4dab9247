/**
 * The permission modes, as a list: the one runtime definition that `--permission-mode`'s choices, the control
 * protocol's check, the ACP harness and the tape schema derive from. `PermissionMode` (types.ts) is the type; the
 * check below fails to compile when the two disagree.
 */
import type { PermissionMode } from './types.ts';

export const PERMISSION_MODES = [
  'default',
  'acceptEdits',
  'bypassPermissions',
  'plan',
  'dontAsk',
] as const satisfies readonly PermissionMode[];

/** Compiles only while every `PermissionMode` is in the list. */
const everyMode: Exclude<PermissionMode, (typeof PERMISSION_MODES)[number]> extends never ? true : never = true;
void everyMode;

/** True when `value` names a permission mode. */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return PERMISSION_MODES.some((mode) => mode === value);
}
