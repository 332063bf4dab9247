/** Boots the page from the data the server (or the exported file) put into it. */
import { render } from 'preact';
import type { AgentMessage } from '../../src/messages/types.ts';
import { App } from './components/App.tsx';
import { ClusterApp } from './components/ClusterApp.tsx';
import { ViewStore } from './model/store.ts';
import type { PageData } from './model/types.ts';
import './styles.css';

function pageData(): PageData {
  const node = document.getElementById('agentpipe-data');
  try {
    const data = JSON.parse(node?.textContent || 'null') as PageData | null;
    if (data && (data.mode === 'file' || data.mode === 'live' || data.mode === 'cluster')) return data;
  } catch {
    /* fall through */
  }
  return { mode: 'file', title: '', messages: [] };
}

const data = pageData();
const store = new ViewStore();
const started = performance.now();
if (data.mode === 'file') {
  for (const message of data.messages) store.push(message as AgentMessage);
  store.closeOpen();
  store.running = false;
}
document.title = data.title ? `${data.title} · agentpipe view` : 'agentpipe view';
render(
  data.mode === 'cluster' ? (
    <ClusterApp title={data.title ?? ''} canStart={data.canStart === true} />
  ) : (
    <App data={data} initial={store} />
  ),
  document.getElementById('app')!,
);
(globalThis as { agentpipeView?: unknown }).agentpipeView = { store, projectedMs: performance.now() - started };
