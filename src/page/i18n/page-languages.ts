import { readFileSync } from 'node:fs';

/**
 * The languages the person's page speaks (DESIGN §30): one message catalog per language in `catalogs/`,
 * English the source. A message is a string with `{name}` placeholders, or, where a number changes the
 * words, one string per CLDR plural category (`one`, `few`, `many`, `other`, …) chosen by
 * `Intl.PluralRules`.
 */
export const PAGE_LANGUAGE_TAGS = ['en', 'fa', 'ar', 'id', 'es', 'ru', 'zh-Hans', 'tr'] as const;

/**
 * `source`: English, what the others translate. `native-speaker`: checked by a native speaker, so the page may
 * choose it from `Accept-Language`. `none`: not yet checked by one, offered only through the picker.
 */
type Review = 'source' | 'native-speaker' | 'none';

export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;

export interface PageLanguage {
  tag: string;
  /** The language's name in itself, for the picker. */
  name: string;
  dir: 'ltr' | 'rtl';
  review: Review;
  messages: Record<string, Message>;
}

/** May be chosen from `Accept-Language`: the source, or a translation a native speaker has checked. */
export const choosableFromHeader = (language: PageLanguage): boolean => language.review !== 'none';

/**
 * Bidi overrides and isolates (U+202A–202E, U+2066–2069) can make a catalog show text in another order than
 * it is stored, hiding what a translation says from its reviewer: refused. ZWNJ (U+200C) is not among them:
 * Persian needs it.
 */
export const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/u;

export const messageTexts = (message: Message): string[] =>
  typeof message === 'string' ? [message] : Object.values(message).filter((text) => text !== undefined);

/** Reads and checks one catalog; a catalog that breaks a rule stops the start. */
export function readCatalog(file: URL): PageLanguage {
  const catalog = JSON.parse(readFileSync(file, 'utf8')) as {
    language: Omit<PageLanguage, 'messages'>;
    messages: PageLanguage['messages'];
  };
  for (const [key, message] of Object.entries(catalog.messages)) {
    if (messageTexts(message).some((text) => BIDI_CONTROLS.test(text)))
      throw new Error(`${file.pathname}: ${key} holds a bidi override or isolate character`);
  }
  return { ...catalog.language, messages: catalog.messages };
}

/** Every page language, English first. */
export function loadPageLanguages(): PageLanguage[] {
  return PAGE_LANGUAGE_TAGS.map((tag) => readCatalog(new URL(`catalogs/${tag}.json`, import.meta.url)));
}
