/** Markdown escaping: text people wrote stays text, whatever Markdown or HTML it holds. */
import { describe, expect, it } from 'vitest';
import { escapeMarkdown } from './review-markdown.js';

describe('escapeMarkdown', () => {
  it.each([
    ['# heading', '\\# heading'],
    ['   - item', '\\- item'],
    ['1. first', '1\\. first'],
    ['> quote', '\\> quote'],
    ['```js', '\\`\\`\\`js'],
    ['<img src=x onerror=alert(1)>', '\\<img src\\=x onerror\\=alert\\(1\\)\\>'],
    ['[a](javascript:x)', '\\[a\\]\\(javascript\\:x\\)'],
    ['a | b', 'a \\| b'],
    ['===', '\\=\\=\\='],
    ['&amp; \\', '\\&amp\\; \\\\'],
    ['*bold* _em_ ~~s~~', '\\*bold\\* \\_em\\_ \\~\\~s\\~\\~'],
  ])('%j → %j', (text, escaped) => {
    expect(escapeMarkdown(text)).toBe(escaped);
  });

  it('keeps lines and paragraphs, without leading indentation or runs of blank lines', () => {
    expect(escapeMarkdown('one\r\n    two\n\n\n\nthree')).toBe('one\ntwo\n\nthree');
  });
});
