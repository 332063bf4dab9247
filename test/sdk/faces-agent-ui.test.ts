/** The evolve SDK's "UI Integration Example", unchanged, against Agent's `content` events. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, type OutputEvent } from '../../src/index.ts';
import { scriptedOptions, PROMPTS } from './scripted-session.ts';

// A stand-in UI that records what the example calls.
const calls: Array<[string, unknown]> = [];
const ui = {
  appendMessage: (text: string) => calls.push(['appendMessage', text]),
  appendImage: (data: string, mimeType: string) => calls.push(['appendImage', { data, mimeType }]),
  appendThought: (content: unknown) => calls.push(['appendThought', content]),
  addTool: (tool: unknown) => calls.push(['addTool', tool]),
  updateTool: (id: string, patch: unknown) => calls.push(['updateTool', { id, patch }]),
  showLiveViewButton: (url: string) => calls.push(['showLiveViewButton', url]),
  showScreenshot: (url: string) => calls.push(['showScreenshot', url]),
  renderPlan: (entries: unknown) => calls.push(['renderPlan', entries]),
};
function extractBrowserUseUrls(text: string): { liveUrl?: string; screenshotUrl?: string } {
  const liveMatch = text.match(/"live_url"\s*:\s*"([^"]+)"/);
  const screenshotMatch = text.match(/"screenshot_url"\s*:\s*"([^"]+)"/);
  return { liveUrl: liveMatch?.[1], screenshotUrl: screenshotMatch?.[1] };
}

// ---- The reference's example, verbatim (the Evolve instance is our Agent) ----
// Helper to detect browser-use tools (they have kind: "other")
function isBrowserUseTool(title?: string): boolean {
  return title?.toLowerCase().includes('browser-use') ?? false;
}

// Track tool titles for browser detection
const toolTitles = new Map<string, string>();

function handleEvent(event: OutputEvent): void {
  const { update } = event;

  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
      if (update.content.type === 'text') {
        ui.appendMessage(update.content.text);
      } else {
        ui.appendImage(update.content.data, update.content.mimeType);
      }
      break;

    case 'agent_thought_chunk':
      ui.appendThought(update.content);
      break;

    case 'user_message_chunk':
      // Gemini echo - typically ignored
      break;

    case 'tool_call':
      // Store title for browser-use detection on updates
      toolTitles.set(update.toolCallId, update.title);

      // Determine effective kind for UI (browser-use has kind: "other")
      const effectiveKind = isBrowserUseTool(update.title) ? 'browser' : update.kind;

      ui.addTool({
        id: update.toolCallId,
        title: update.title,
        kind: effectiveKind, // Use "browser" for browser-use tools
        status: update.status,
        locations: update.locations,
      });
      break;

    case 'tool_call_update':
      // 1. Always update tool card with result
      ui.updateTool(update.toolCallId, {
        status: update.status,
        content: update.content,
      });

      // 2. Extract browser-use URLs if this is a browser-use tool
      const title = toolTitles.get(update.toolCallId);
      if (isBrowserUseTool(title)) {
        for (const c of update.content ?? []) {
          if (c.type === 'content' && c.content?.type === 'text') {
            const urls = extractBrowserUseUrls(c.content.text);
            if (urls.liveUrl) ui.showLiveViewButton(urls.liveUrl);
            if (urls.screenshotUrl) ui.showScreenshot(urls.screenshotUrl);
          }
        }
      }
      break;

    case 'plan':
      ui.renderPlan(update.entries);
      break;
  }
}
// ---- end of the example ----

test('the UI Integration Example works unchanged against Agent content events', async () => {
  const evolve = new Agent(scriptedOptions());
  evolve.on('content', handleEvent);
  const sessionIds = new Set<string>();
  evolve.on('content', (e: OutputEvent) => sessionIds.add(e.sessionId!));
  const { result } = await evolve.run({ prompt: PROMPTS[0] });
  assert.equal(result.subtype, 'success');
  const kinds = calls.map(([name]) => name);
  assert.ok(kinds.includes('appendThought') && kinds.includes('renderPlan'));
  assert.equal(
    calls
      .filter(([n]) => n === 'appendMessage')
      .map(([, t]) => t)
      .join(''),
    'I will make a plan.Now editing the notes.All done: notes updated.',
  );
  const tools = calls.filter(([n]) => n === 'addTool').map(([, t]) => t as { id: string; kind: string });
  assert.deepEqual(
    tools.map((t) => [t.id, t.kind]),
    [
      ['toolu_read1', 'read'],
      ['toolu_glob1', 'search'],
      ['toolu_edit1', 'edit'],
      ['toolu_write1', 'edit'],
      ['toolu_read2', 'read'],
      ['toolu_bash1', 'execute'],
      ['toolu_task1', 'think'],
      ['toolu_sub_read', 'read'],
    ],
  );
  const updates = calls
    .filter(([n]) => n === 'updateTool')
    .map(([, u]) => u as { id: string; patch: { status: string } });
  assert.deepEqual(Object.fromEntries(updates.map((u) => [u.id, u.patch.status])), {
    toolu_read1: 'completed',
    toolu_glob1: 'completed',
    toolu_edit1: 'completed',
    toolu_write1: 'failed',
    toolu_read2: 'failed',
    toolu_bash1: 'completed',
    toolu_task1: 'completed',
    toolu_sub_read: 'completed',
  });
  assert.equal(sessionIds.size, 1);
  await evolve.kill();
});
