import { Html, html } from '../../html.js';
import type { PageLanguage } from './page-languages.js';

type MessageValue = Html | string | number;
export type Translate = (key: string, values?: Record<string, MessageValue>) => Html;

/**
 * The page's words in one language, for the server's markup: a message's `{name}` placeholders filled with
 * the values (text escaped, `Html` as it is, numbers written as the language writes them); a message with
 * plural forms takes the one `Intl.PluralRules` picks for `count`. An unknown key is a bug that stops the start
 * (the pages are rendered when the app is built).
 */
export function translator(language: PageLanguage): Translate {
  const plurals = new Intl.PluralRules(language.tag);
  const numbers = new Intl.NumberFormat(language.tag);
  return (key, values = {}) => {
    const message = language.messages[key];
    if (message === undefined) throw new Error(`no message ${key} in the ${language.tag} catalog`);
    const count = values.count;
    const text =
      typeof message === 'string'
        ? message
        : (message[plurals.select(typeof count === 'number' ? count : 0)] ?? message.other!);
    const parts = text.split(/\{([a-zA-Z]+)\}/);
    return new Html(
      parts
        .map((part, i) => {
          if (i % 2 === 0) return html`${part}`.text;
          const value = values[part];
          if (value === undefined) throw new Error(`${key} needs a value for {${part}}`);
          return typeof value === 'number' ? numbers.format(value) : html`${value}`.text;
        })
        .join(''),
    );
  };
}
