import type { Message, PageLanguage } from './page-languages.js';

/**
 * `en-XA`, the pseudo-locale (the tag Android and Chromium use for one): English with every letter accented,
 * each message in ⟦ ⟧ and a third longer. A page in it shows at a glance any word that does not come from a
 * catalog (plain ASCII) and any layout that breaks when a translation is longer. Reached only through
 * `?lang=en-XA`: not in the picker, never from `Accept-Language`.
 */
const PSEUDO_TAG = 'en-XA';

const ACCENTED: Record<string, string> = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((letter, i) => [
    letter,
    [...'àƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ'][i]!,
  ]),
);

function pseudoText(text: string): string {
  // Placeholders stay as they are: the page fills them in.
  const accented = text
    .split(/(\{[a-zA-Z]+\})/)
    .map((part, i) => (i % 2 ? part : part.replace(/[a-zA-Z]/g, (letter) => ACCENTED[letter]!)))
    .join('');
  return `⟦${accented}${'~'.repeat(Math.ceil(text.length / 3))}⟧`;
}

const pseudoMessage = (message: Message): Message =>
  typeof message === 'string'
    ? pseudoText(message)
    : Object.fromEntries(Object.entries(message).map(([category, text]) => [category, pseudoText(text!)]));

export function pseudoLanguage(english: PageLanguage): PageLanguage {
  return {
    tag: PSEUDO_TAG,
    name: 'Pseudo',
    dir: 'ltr',
    review: 'none',
    messages: Object.fromEntries(Object.entries(english.messages).map(([key, m]) => [key, pseudoMessage(m)])),
  };
}
