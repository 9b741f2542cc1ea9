import { describe, expect, it } from 'vitest';
import { argumentNames, formatToParts, parseMessage, type MessageNode } from './message-format';

function nodes(source: string): readonly MessageNode[] {
  const result = parseMessage(source);
  if (!result.ok) throw new Error(result.error);
  return result.nodes;
}

function format(source: string, args: Record<string, string | number> = {}, locale = 'en'): string {
  return formatToParts(nodes(source), args, { locale }).join('');
}

describe('the message formatter', () => {
  it('puts arguments in their place and numbers in the locale’s digits', () => {
    expect(format('Edit {name}', { name: 'web-1' })).toBe('Edit web-1');
    expect(format('{n} of {total}', { n: 1234, total: 5 })).toBe('1,234 of 5');
    expect(format('{n} von {total}', { n: 1234.5, total: 5 }, 'de')).toBe('1.234,5 von 5');
    expect(format('{n, number} B', { n: 2048 }, 'fr')).toBe('2\u202f048 B');
  });

  it('chooses plural branches by exact value, then by the language’s category', () => {
    const items = '{n, plural, =0 {no items} one {# item} other {# items}}';
    expect(format(items, { n: 0 })).toBe('no items');
    expect(format(items, { n: 1 })).toBe('1 item');
    expect(format(items, { n: 2000 })).toBe('2,000 items');
    // French: 0 and 1 are "one"; Chinese has only "other".
    expect(format('{n, plural, one {# élément} other {# éléments}}', { n: 0 }, 'fr')).toBe('0 élément');
    expect(format('{n, plural, other {共 # 项}}', { n: 1 }, 'zh-CN')).toBe('共 1 项');
    // A category the message lacks falls back to "other" (Spanish "many" for a million).
    expect(format('{n, plural, one {# activo} other {# activos}}', { n: 1_000_000 }, 'es')).toBe(
      '1.000.000 activos',
    );
  });

  it('chooses select branches, "other" for any other value, and nests', () => {
    const message =
      '{role, select, owner {the owner} other {a {role}}} with {n, plural, one {# key} other {# keys}}';
    expect(format(message, { role: 'owner', n: 1 })).toBe('the owner with 1 key');
    expect(format(message, { role: 'viewer', n: 3 })).toBe('a viewer with 3 keys');
    const nested = '{n, plural, one {{kind, select, group {one group} other {one asset}}} other {# things}}';
    expect(format(nested, { n: 1, kind: 'group' })).toBe('one group');
    expect(format(nested, { n: 4, kind: 'group' })).toBe('4 things');
  });

  it('reads ICU quoting and keeps a lone apostrophe', () => {
    expect(format("l'actif {name}", { name: 'web' })).toBe("l'actif web");
    expect(format("It''s '{literal}' and '#'", {})).toBe("It's {literal} and '#'");
    expect(format("{n, plural, other {'#' is #}}", { n: 3 })).toBe('# is 3');
  });

  it('shows an argument not given by its name instead of failing', () => {
    expect(format('Hello {name}')).toBe('Hello {name}');
  });

  it('keeps element arguments as parts between the text', () => {
    const link = { element: 'a' };
    expect(formatToParts(nodes('Go {link} now, {who}.'), { link, who: 'you' }, { locale: 'en' })).toEqual([
      'Go ',
      link,
      ' now, you.',
    ]);
  });

  it('transforms the message’s own text only, not its arguments', () => {
    const upper = (text: string) => text.toUpperCase();
    expect(
      formatToParts(nodes('edit {name}'), { name: 'web' }, { locale: 'en', transformText: upper }).join(''),
    ).toBe('EDIT web');
  });

  it('refuses what it does not read, with where', () => {
    for (const broken of [
      'Hello {name',
      'Hello }',
      '{n, plural, one {# item}}',
      '{n, plural, few {a} other {b}',
      '{n, plural, lots {a} other {b}}',
      '{x, select, a {1} a {2} other {3}}',
      '{d, date}',
      "'{unterminated",
    ]) {
      const result = parseMessage(broken);
      expect(result.ok, broken).toBe(false);
    }
  });

  it('lists the arguments a message uses and how', () => {
    expect([...argumentNames(nodes('{a} {n, plural, other {{s, select, x {#} other {{b}}}}}'))]).toEqual([
      ['a', 'text'],
      ['n', 'number'],
      ['s', 'select'],
      ['b', 'text'],
    ]);
  });
});
