/** Inline SVG icons (no external assets): one per ACP tool kind, and a few for the chrome. */
import type { JSX } from 'preact';
import type { ToolKind } from '../model/types.ts';

const PATHS: Record<string, string> = {
  read: 'M4 3h11l5 5v13H4zM14 3v6h6M8 13h8M8 17h8',
  edit: 'M4 20h4L19 9l-4-4L4 16zM13.5 6.5l4 4',
  delete: 'M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13',
  move: 'M4 12h14M14 7l5 5-5 5',
  search: 'M10.5 4a6.5 6.5 0 1 1 0 13 6.5 6.5 0 0 1 0-13zM15.5 15.5 20 20',
  execute: 'M3 5h18v14H3zM7 10l3 2-3 2M12 15h5',
  think: 'M12 3a6 6 0 0 1 4 10.5V17H8v-3.5A6 6 0 0 1 12 3zM9 20h6',
  fetch: 'M12 3a9 9 0 1 1 0 18 9 9 0 0 1 0-18zM3 12h18M12 3c3 3 3 15 0 18M12 3c-3 3-3 15 0 18',
  switch_mode: 'M7 7h13l-4-4M17 17H4l4 4',
  other: 'M14.7 6.3a4 4 0 0 0-5.4 5.4L3 18l3 3 6.3-6.3a4 4 0 0 0 5.4-5.4l-2.5 2.5-2.5-2.5z',
  user: 'M12 4a4 4 0 1 1 0 8 4 4 0 0 1 0-8zM4 21c1-4 4.5-6 8-6s7 2 8 6',
  bot: 'M5 8h14v11H5zM12 4v4M9 13h.01M15 13h.01M9 16h6',
  sun:
    'M12 8a4 4 0 1 1 0 8 4 4 0 0 1 0-8zM12 2v2M12 20v2M2 12h2M20 12h2' +
    'M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4',
  moon: 'M20 14.5A8 8 0 0 1 9.5 4 8 8 0 1 0 20 14.5z',
  chevron: 'M9 6l6 6-6 6',
  check: 'M5 12l5 5 9-10',
  cross: 'M6 6l12 12M18 6L6 18',
  alert: 'M12 3l10 18H2zM12 10v5M12 18h.01',
  shield: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6zM9 12l2 2 4-4',
  hook: 'M12 3v10a4 4 0 1 1-4-4',
  compress: 'M4 9h6V3M20 9h-6V3M4 15h6v6M20 15h-6v6',
  stop: 'M7 7h10v10H7z',
  send: 'M4 12l16-8-6 16-3-7z',
};

export const KIND_LABEL: Record<ToolKind, string> = {
  read: 'read',
  edit: 'edit',
  delete: 'delete',
  move: 'move',
  search: 'search',
  execute: 'execute',
  think: 'agent',
  fetch: 'fetch',
  switch_mode: 'mode',
  other: 'tool',
};

export function Icon({ name, size = 16, class: cls }: { name: string; size?: number; class?: string }): JSX.Element {
  return (
    <svg
      class={`icon ${cls ?? ''}`}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width="1.8"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
    >
      <path d={PATHS[name] ?? PATHS.other} />
    </svg>
  );
}
