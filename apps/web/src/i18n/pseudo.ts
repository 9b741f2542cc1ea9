/**
 * The pseudo-locale: English with accented letters, each run of translated text between ⟦ and ⟧. A browser
 * test renders the console in it and finds every visible text that did not come from a catalogue (it has no
 * marker), and a layout that cannot take accents shows too.
 */
const plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const accented = Array.from('åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ');

export function accentText(text: string): string {
  return text.replace(/[A-Za-z]/g, (letter) => accented[plain.indexOf(letter)] ?? letter);
}

export function markPseudo(text: string): string {
  return `⟦${text}⟧`;
}
