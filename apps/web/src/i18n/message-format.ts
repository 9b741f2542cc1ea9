/**
 * The subset of ICU MessageFormat the console's catalogues use, parsed and formatted here (no dependency):
 *
 * - arguments `{name}` (a number argument is formatted with Intl.NumberFormat) and `{n, number}`;
 * - `{n, plural, =0 {…} one {# …} other {# …}}`: exact matches first, then the language's plural category
 *   (Intl.PluralRules; Chinese has only `other`), `#` is the number formatted;
 * - `{x, select, a {…} b {…} other {…}}`; plural and select need an `other` branch and nest freely;
 * - ICU quoting: `''` is one apostrophe, `'{…}'` is literal text; a lone apostrophe (l'actif) stays as it is.
 *
 * Pure: parsing returns a result value instead of throwing, formatting never throws (an argument not given
 * shows as `{name}`).
 */

export type MessageNode =
  | { kind: 'text'; value: string }
  | { kind: 'argument'; name: string }
  | { kind: 'number'; name: string }
  | { kind: 'pound' }
  | { kind: 'plural'; name: string; branches: Readonly<Record<string, readonly MessageNode[]>> }
  | { kind: 'select'; name: string; branches: Readonly<Record<string, readonly MessageNode[]>> };

export type ParseResult = { ok: true; nodes: readonly MessageNode[] } | { ok: false; error: string };

/** Thrown inside the parser only, turned into a result at its boundary. */
class SyntaxProblem extends Error {}

const pluralKeys = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);

class Parser {
  private at = 0;
  constructor(private readonly source: string) {}

  parse(): readonly MessageNode[] {
    const nodes = this.message(false, 0);
    if (this.at < this.source.length) this.fail(`unexpected "${this.source[this.at] ?? ''}"`);
    return nodes;
  }

  private fail(why: string): never {
    throw new SyntaxProblem(`${why} at ${String(this.at)}`);
  }

  /** Text and arguments up to an unmatched `}` (inside a branch) or the end. */
  private message(inPlural: boolean, depth: number): MessageNode[] {
    const nodes: MessageNode[] = [];
    let text = '';
    const flush = () => {
      if (text !== '') nodes.push({ kind: 'text', value: text });
      text = '';
    };
    while (this.at < this.source.length) {
      const char = this.source[this.at] ?? '';
      if (char === '}') {
        if (depth === 0) this.fail('unmatched "}"');
        break;
      }
      if (char === '{') {
        flush();
        nodes.push(this.argument(depth));
      } else if (char === '#' && inPlural) {
        flush();
        nodes.push({ kind: 'pound' });
        this.at += 1;
      } else if (char === "'") {
        text += this.quoted(inPlural);
      } else {
        text += char;
        this.at += 1;
      }
    }
    flush();
    return nodes;
  }

  /** At an apostrophe: `''`, a quoted run starting with a syntax character, or a plain apostrophe. */
  private quoted(inPlural: boolean): string {
    const next = this.source[this.at + 1];
    if (next === "'") {
      this.at += 2;
      return "'";
    }
    if (next === '{' || next === '}' || (next === '#' && inPlural)) {
      const end = this.source.indexOf("'", this.at + 1);
      if (end < 0) this.fail('unterminated quote');
      const literal = this.source.slice(this.at + 1, end);
      this.at = end + 1;
      return literal;
    }
    this.at += 1;
    return "'";
  }

  private skipSpace(): void {
    while (/\s/.test(this.source[this.at] ?? '')) this.at += 1;
  }

  private word(): string {
    this.skipSpace();
    const match = /^[\p{L}\p{N}_=-]+/u.exec(this.source.slice(this.at));
    if (!match) this.fail('expected a name');
    this.at += match[0].length;
    this.skipSpace();
    return match[0];
  }

  private expect(char: string): void {
    if (this.source[this.at] !== char) this.fail(`expected "${char}"`);
    this.at += 1;
  }

  private argument(depth: number): MessageNode {
    this.expect('{');
    const name = this.word();
    if (this.source[this.at] === '}') {
      this.at += 1;
      return { kind: 'argument', name };
    }
    this.expect(',');
    const type = this.word();
    if (type === 'number') {
      this.expect('}');
      return { kind: 'number', name };
    }
    if (type !== 'plural' && type !== 'select') this.fail(`unknown argument type "${type}"`);
    this.expect(',');
    const branches: Record<string, readonly MessageNode[]> = {};
    this.skipSpace();
    while (this.source[this.at] !== '}') {
      if (this.at >= this.source.length) this.fail('unterminated argument');
      const key = this.word();
      if (type === 'plural' && !pluralKeys.has(key) && !/^=\d+$/.test(key))
        this.fail(`unknown plural category "${key}"`);
      if (key in branches) this.fail(`duplicate branch "${key}"`);
      this.expect('{');
      branches[key] = this.message(type === 'plural', depth + 1);
      this.expect('}');
      this.skipSpace();
    }
    this.at += 1;
    if (!('other' in branches)) this.fail(`${type} "${name}" has no "other" branch`);
    return { kind: type, name, branches };
  }
}

export function parseMessage(source: string): ParseResult {
  try {
    return { ok: true, nodes: new Parser(source).parse() };
  } catch (error) {
    if (error instanceof SyntaxProblem) return { ok: false, error: error.message };
    throw error;
  }
}

/** The argument names a message uses (with their nesting flattened), for checks and samples. */
export function argumentNames(nodes: readonly MessageNode[]): Map<string, 'text' | 'number' | 'select'> {
  const names = new Map<string, 'text' | 'number' | 'select'>();
  const visit = (list: readonly MessageNode[]) => {
    for (const node of list) {
      if (node.kind === 'argument' && !names.has(node.name)) names.set(node.name, 'text');
      if (node.kind === 'number' || node.kind === 'plural') names.set(node.name, 'number');
      if (node.kind === 'select') names.set(node.name, 'select');
      if (node.kind === 'plural' || node.kind === 'select') Object.values(node.branches).forEach(visit);
    }
  };
  visit(nodes);
  return names;
}

export interface FormatOptions {
  locale: string;
  /** Applied to the message's own text (not to arguments): the pseudo-locale's accents. */
  transformText?: (text: string) => string;
}

const numberFormats = new Map<string, Intl.NumberFormat>();
const pluralRules = new Map<string, Intl.PluralRules>();

function numberFormat(locale: string): Intl.NumberFormat {
  let format = numberFormats.get(locale);
  if (!format) numberFormats.set(locale, (format = new Intl.NumberFormat(locale)));
  return format;
}

function pluralCategory(locale: string, n: number): string {
  let rules = pluralRules.get(locale);
  if (!rules) pluralRules.set(locale, (rules = new Intl.PluralRules(locale)));
  return rules.select(n);
}

/**
 * The message with its arguments, as parts: runs of text merged into one string, other argument values
 * (React elements, for rich messages) between them as they are.
 */
export function formatToParts<T>(
  nodes: readonly MessageNode[],
  args: Readonly<Record<string, string | number | T>>,
  options: FormatOptions,
): (string | T)[] {
  const parts: (string | T)[] = [];
  const push = (part: string | T) => {
    const last = parts.at(-1);
    if (typeof part === 'string' && typeof last === 'string') parts[parts.length - 1] = last + part;
    else if (part !== '') parts.push(part);
  };
  const asText = (value: string | number | T | undefined, name: string): string | T => {
    if (value === undefined) return `{${name}}`;
    return typeof value === 'number' ? numberFormat(options.locale).format(value) : value;
  };
  const walk = (list: readonly MessageNode[], pound: number | null) => {
    for (const node of list) {
      switch (node.kind) {
        case 'text':
          push(options.transformText ? options.transformText(node.value) : node.value);
          break;
        case 'argument':
        case 'number':
          push(asText(args[node.name], node.name));
          break;
        case 'pound':
          push(pound === null ? '#' : numberFormat(options.locale).format(pound));
          break;
        case 'plural': {
          const value = args[node.name];
          const n = typeof value === 'number' ? value : Number(value);
          const branch =
            node.branches[`=${String(n)}`] ??
            node.branches[pluralCategory(options.locale, n)] ??
            node.branches.other ??
            [];
          walk(branch, n);
          break;
        }
        case 'select': {
          const value = args[node.name];
          const key = typeof value === 'string' || typeof value === 'number' ? String(value) : 'other';
          walk(node.branches[key] ?? node.branches.other ?? [], pound);
          break;
        }
      }
    }
  };
  walk(nodes, null);
  return parts;
}
