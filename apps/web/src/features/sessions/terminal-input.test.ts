import { describe, expect, it } from 'vitest';
import { cdInput, inputFrames, insertWouldRun, shellQuote, snippetInsertText } from './terminal-input';

describe('terminal input', () => {
  it('quotes a directory so the shell reads it literally', () => {
    expect(shellQuote('/srv/web')).toBe("'/srv/web'");
    expect(shellQuote("/srv/it's $HOME `x`")).toBe(`'/srv/it'\\''s $HOME \`x\`'`);
    expect(cdInput('/tmp/-x y')).toBe("cd -- '/tmp/-x y'\r");
  });

  it('cuts input into frames no larger than the size', () => {
    const bytes = new Uint8Array(20_000).fill(97);
    const frames = inputFrames(bytes, 8192);
    expect(frames.map((f) => f.length)).toEqual([8192, 8192, 3616]);
    expect(inputFrames(new Uint8Array(0))).toEqual([]);
  });

  it('inserts a snippet without its closing line ends, and knows when an insert would run lines', () => {
    expect(snippetInsertText('df -h\n')).toBe('df -h');
    expect(snippetInsertText('a\nb\r\n')).toBe('a\nb');
    expect(insertWouldRun('df -h\n', false)).toBe(false);
    expect(insertWouldRun('a\nb', false)).toBe(true);
    expect(insertWouldRun('a\nb', true)).toBe(false);
  });
});
