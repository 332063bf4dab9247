/** The page: header, timeline, conversation (virtualized), plan at the side, footer, prompt box (live). */
import type { JSX } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { LiveClient } from '../live.ts';
import { ViewStore } from '../model/store.ts';
import type { PageData } from '../model/types.ts';
import { Footer, Header, PlanPanel, ThemeToggle, Timeline } from './Chrome.tsx';
import type { DiffMode } from './DiffView.tsx';
import { PromptBox } from './PromptBox.tsx';
import { matches } from './search.ts';
import { Settings } from './settings.ts';
import { VirtualList, type ListHandle } from './VirtualList.tsx';
import { Waterfall } from './Waterfall.tsx';
import { useKeys } from './useKeys.ts';

function initialTheme(): string {
  const saved = globalThis.localStorage?.getItem('agentpipe-theme');
  if (saved === 'dark' || saved === 'light') return saved;
  return matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}

/**
 * `watching`: a stream that grows while it is shown (a cluster session followed live): the list
 * follows its end as in live mode; `status` is the state of its feed.
 */
export function App({
  data,
  initial,
  watching = false,
  status,
}: {
  data: PageData;
  initial: ViewStore;
  watching?: boolean;
  status?: string;
}): JSX.Element {
  const [store, setStore] = useState(initial);
  const [, setVersion] = useState(0);
  const [theme, setTheme] = useState(initialTheme);
  const [diffMode, setDiffMode] = useState<DiffMode>('unified');
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(-1);
  const [showWaterfall, setShowWaterfall] = useState(false);
  const list = useRef<ListHandle | null>(null);
  const search = useRef<HTMLInputElement>(null);
  const live = data.mode === 'live';
  const client = useMemo(() => (live ? new LiveClient(store, () => setVersion((v) => v + 1)) : undefined), [store]);

  useEffect(() => store.subscribe(() => setVersion(store.version)), [store]);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    try {
      localStorage.setItem('agentpipe-theme', theme);
    } catch {
      /* file:// pages may not store */
    }
  }, [theme]);

  const items = useMemo(
    () => (query.trim() ? store.items.filter((item) => matches(item, query.trim())) : store.items),
    [store, store.version, store.items.length, query],
  );
  useEffect(() => setSelected(-1), [query]);
  useKeys({ count: items.length, setSelected, search, clearSearch: () => setQuery('') });

  const newSession = () => {
    client?.close();
    setSelected(-1);
    setStore(new ViewStore());
  };

  return (
    <Settings.Provider value={{ diffMode }}>
      <div class={`app ${live ? 'live' : ''}`}>
        <Header header={store.header} title={data.title ?? ''} running={store.running}>
          <input
            ref={search}
            class="search"
            type="search"
            placeholder="Search  ( / )"
            value={query}
            data-testid="search"
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
          {query.trim() ? (
            <span class="muted small" data-testid="search-count">
              {items.length} match{items.length === 1 ? '' : 'es'}
            </span>
          ) : (
            <></>
          )}
          <button
            type="button"
            class="btn small"
            data-testid="diff-mode"
            onClick={() => setDiffMode(diffMode === 'unified' ? 'split' : 'unified')}
          >
            {diffMode === 'unified' ? 'Side by side' : 'Unified'}
          </button>
          <button
            type="button"
            class={`btn small${showWaterfall ? ' on' : ''}`}
            data-testid="waterfall-toggle"
            aria-pressed={showWaterfall}
            title="Where the prompt's time went: model requests, tools, subagents"
            onClick={() => setShowWaterfall(!showWaterfall)}
          >
            Waterfall
          </button>
          <ThemeToggle theme={theme} onToggle={() => setTheme(theme === 'dark' ? 'light' : 'dark')} />
          {status ? (
            <span class="muted small" data-testid="watch-state">
              {status === 'open' ? 'live' : status}
            </span>
          ) : (
            <></>
          )}
        </Header>
        <div class="bars">
          <Timeline items={items} selected={selected} onPick={(i) => setSelected(i)} />
          {showWaterfall && <Waterfall store={store} />}
        </div>
        <div class="middle">
          <main class="conversation" data-testid="conversation">
            {items.length === 0 ? (
              <div class="empty">
                {query
                  ? 'Nothing matches.'
                  : live
                    ? 'Type a prompt below to start a session.'
                    : 'This stream has no messages.'}
              </div>
            ) : (
              <VirtualList
                items={items}
                selected={selected}
                onSelect={setSelected}
                handle={list}
                follow={(live || watching) && selected < 0}
              />
            )}
          </main>
          <PlanPanel plan={store.plan} />
        </div>
        {client && <PromptBox client={client} running={store.running} onNew={newSession} />}
        <Footer totals={store.liveTotals()} />
      </div>
    </Settings.Provider>
  );
}
