/** Live mode: a prompt box that starts (or goes on in) a session, Stop (interrupt), New session. */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { LiveClient } from '../live.ts';
import { Icon } from './icons.tsx';

export function PromptBox({
  client,
  running,
  onNew,
}: {
  client: LiveClient;
  running: boolean;
  onNew(): void;
}): JSX.Element {
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const submit = async (event?: Event) => {
    event?.preventDefault();
    if (!text.trim() || running) return;
    setError('');
    try {
      await client.prompt(text);
      setText('');
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <form class="prompt-box" onSubmit={submit} data-testid="prompt-form">
      <textarea
        data-testid="prompt-input"
        placeholder={
          client.state === 'open'
            ? 'Send a follow-up… (Enter to send, Shift+Enter for a new line)'
            : 'Start a session: type a prompt (Enter to send)'
        }
        value={text}
        rows={2}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) void submit(e);
        }}
      />
      <div class="prompt-actions">
        {running ? (
          <button type="button" class="btn danger" data-testid="stop" onClick={() => client.interrupt()}>
            <Icon name="stop" size={14} /> Stop
          </button>
        ) : (
          <button type="submit" class="btn primary" data-testid="send" disabled={!text.trim()}>
            <Icon name="send" size={14} /> Send
          </button>
        )}
        <button type="button" class="btn" data-testid="new-session" onClick={onNew} disabled={client.state === 'idle'}>
          New session
        </button>
        <span class="muted small" data-testid="connection">
          {client.state === 'idle' ? 'no session' : client.state}
        </span>
        {error && <span class="error small">{error}</span>}
      </div>
    </form>
  );
}
