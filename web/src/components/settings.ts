/** Page-wide view settings shared by the cards. */
import { createContext } from 'preact';
import type { DiffMode } from './DiffView.tsx';

export interface ViewSettings {
  diffMode: DiffMode;
}
export const Settings = createContext<ViewSettings>({ diffMode: 'unified' });
