/** One conversation item: a user prompt, assistant text (Markdown), a folded thought, a tool card or a notice. */
import { Component, type JSX } from 'preact';
import type { Item, NoticeItem } from '../model/types.ts';
import { Icon } from './icons.tsx';
import { renderMarkdown } from './markdown.ts';
import { ToolCard } from './ToolCard.tsx';

const NOTICE_ICON: Record<NoticeItem['level'], string> = {
  denial: 'shield',
  hook: 'hook',
  compaction: 'compress',
  error: 'alert',
  abort: 'stop',
  retry: 'alert',
};

function Body({ item }: { item: Item }): JSX.Element {
  switch (item.kind) {
    case 'user':
      return (
        <div class="msg user" data-testid="user-message">
          <div class="who">
            <Icon name="user" size={14} /> You
          </div>
          <div class="user-text">{item.text}</div>
          {item.images.map(
            (img, i) =>
              img.type === 'image' && (
                <img key={i} class="tool-image" alt="prompt image" src={`data:${img.mimeType};base64,${img.data}`} />
              ),
          )}
        </div>
      );
    case 'text':
      return (
        <div class={`msg assistant ${item.open ? 'streaming' : ''}`} data-testid="assistant-text">
          <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.text) }} />
        </div>
      );
    case 'thought':
      return (
        <details class="thought" data-testid="thinking">
          <summary>
            <Icon name="think" size={14} /> Thinking{' '}
            <span class="muted">· {item.text.length.toLocaleString('en-US')} characters</span>
          </summary>
          <div class="markdown muted" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.text) }} />
        </details>
      );
    case 'tool':
      return <ToolCard card={item} />;
    case 'notice':
      return (
        <div class={`notice notice-${item.level}`} data-testid="notice" data-level={item.level} role="note">
          <Icon name={NOTICE_ICON[item.level]} size={15} />
          <div>
            <div class="notice-title">{item.title}</div>
            {item.detail && <div class="notice-detail">{item.detail}</div>}
          </div>
        </div>
      );
  }
}

interface Props {
  item: Item;
  rev: number;
  selected?: boolean;
}

/** Renders again only when the item changed (its `rev`) or the selection moved. */
export class ItemView extends Component<Props> {
  override shouldComponentUpdate(next: Props): boolean {
    return next.item !== this.props.item || next.rev !== this.props.rev || next.selected !== this.props.selected;
  }

  override render({ item, selected }: Props): JSX.Element {
    return (
      <div class={`item item-${item.kind} ${selected ? 'selected' : ''}`}>
        <Body item={item} />
      </div>
    );
  }
}

/** A short list (a subagent's steps): rendered whole. */
export function ItemList({ items }: { items: Item[] }): JSX.Element {
  return (
    <div class="item-list">
      {items.map((item) => (
        <ItemView key={item.key} item={item} rev={item.rev} />
      ))}
    </div>
  );
}
