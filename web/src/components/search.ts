/** The text an item is searched by. */
import type { Item } from '../model/types.ts';

export function itemText(item: Item): string {
  switch (item.kind) {
    case 'user':
    case 'text':
    case 'thought':
      return item.text;
    case 'notice':
      return `${item.title}\n${item.detail ?? ''}`;
    case 'tool': {
      const out = item.content
        .map((c) => (c.type === 'diff' ? `${c.path}\n${c.newText}` : c.content.type === 'text' ? c.content.text : ''))
        .join('\n');
      return (
        `${item.title}\n${item.name}\n${JSON.stringify(item.rawInput ?? '')}\n${out}\n` +
        `${item.children.map(itemText).join('\n')}`
      );
    }
  }
}

export function matches(item: Item, query: string): boolean {
  return itemText(item).toLowerCase().includes(query.toLowerCase());
}
