/** Markdown → sanitized HTML (marked + DOMPurify), code blocks highlighted with highlight.js. */
import { Marked } from 'marked';
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

for (const [name, language] of Object.entries({
  bash,
  css,
  diff,
  javascript,
  json,
  python,
  rust,
  typescript,
  xml,
  yaml,
}))
  hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Highlighted HTML of `code` (escaped plain text when the language is unknown). */
export function highlight(code: string, language?: string): string {
  if (language && hljs.getLanguage(language)) return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  return escape(code);
}

const EXT: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  py: 'python',
  rs: 'rust',
  json: 'json',
  css: 'css',
  html: 'xml',
  sh: 'bash',
  yml: 'yaml',
  yaml: 'yaml',
};

/** The highlight.js language of a file name, if one is registered. */
export function languageOf(file: string): string | undefined {
  return EXT[file.split('.').pop()?.toLowerCase() ?? ''];
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? '').split(/\s/)[0];
      return (
        `<pre class="code"><code ` +
        `class="hljs${language ? ` language-${escape(language)}` : ''}">${highlight(text, language)}</code></pre>`
      );
    },
  },
});

const cache = new Map<string, string>();

export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const html = DOMPurify.sanitize(marked.parse(text, { async: false }) as string);
  if (cache.size > 2000) cache.clear();
  cache.set(text, html);
  return html;
}
