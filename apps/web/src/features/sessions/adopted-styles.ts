/**
 * xterm.js writes its dynamic CSS (theme colours, cursor, row sizes, scrollbar) into `<style>` elements it
 * makes while `open()` runs and rewrites later; the console's CSP (`style-src 'self'`, decision 0014) refuses
 * every one of them, and xterm has no option for another way. `openUnderCsp` hands xterm, for those elements
 * only, a stand-in: an inert element whose text goes into a constructed stylesheet adopted by the document.
 * Constructed stylesheets are CSSOM, which `style-src` does not govern, so the CSS applies and nothing is
 * refused; the policy stays as strict as it is. xterm's static CSS is the bundled stylesheet (xterm.css).
 */

/** What xterm does with its style elements: sets their text, appends them, removes them on dispose. */
function adoptedStyle(doc: Document, create: (tag: string) => HTMLElement): HTMLElement {
  const view = doc.defaultView;
  if (!view) throw new Error('the terminal needs a document shown in a window');
  const sheet = new view.CSSStyleSheet();
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  const stand = create('svc-adopted-style');
  stand.hidden = true;
  let text = '';
  Object.defineProperty(stand, 'textContent', {
    configurable: true,
    get: () => text,
    set: (value: string | null) => {
      text = value ?? '';
      sheet.replaceSync(text);
    },
  });
  const detach = stand.remove.bind(stand);
  stand.remove = () => {
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
    detach();
  };
  return stand;
}

const throughCssom = new WeakSet<object>();

/**
 * xterm's DOM renderer colours some cells (a selected one, a 24-bit colour) with `setAttribute('style', …)`
 * on the cell's span, which the CSP's `style-src-attr` refuses (decision 0091: every selection did). The same
 * declarations through the CSSOM (`style.cssText`) are not governed by the CSP, and apply. Installed once per
 * window, for span elements only: the renderer's cells are spans, and React sets styles through the CSSOM.
 */
function spanStylesThroughCssom(view: Window & typeof globalThis): void {
  const prototype = view.HTMLSpanElement.prototype;
  if (throughCssom.has(prototype)) return;
  throughCssom.add(prototype);
  // Element's own method, which the spans' stand-in below shadows and calls for every other attribute.
  const element = view.Element.prototype;
  Object.defineProperty(prototype, 'setAttribute', {
    configurable: true,
    writable: true,
    value(this: HTMLSpanElement, name: string, value: string) {
      if (name.toLowerCase() === 'style') this.style.cssText = value;
      else element.setAttribute.call(this, name, value);
    },
  });
}

/**
 * `open(parent)` with the document's `createElement('style')` answered by the stand-in above. xterm makes all
 * of its style elements inside `open()`, synchronously (its DOM renderer's two and its viewport's one), so the
 * document is itself again as soon as it returns.
 */
export function openUnderCsp(open: (parent: HTMLElement) => void, parent: HTMLElement): void {
  const doc = parent.ownerDocument;
  if (doc.defaultView) spanStylesThroughCssom(doc.defaultView);
  // The document's own method, kept before the stand-in shadows it.
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the string overload; unbound, the rule cannot tell
  const create: (tag: string, options?: ElementCreationOptions) => HTMLElement = doc.createElement.bind(doc);
  Object.defineProperty(doc, 'createElement', {
    configurable: true,
    value: (tag: string, options?: ElementCreationOptions) =>
      tag.toLowerCase() === 'style' ? adoptedStyle(doc, create) : create(tag, options),
  });
  try {
    open(parent);
  } finally {
    Reflect.deleteProperty(doc, 'createElement');
  }
}
