import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  BIDI_CONTROLS,
  loadPageLanguages,
  type Message,
  messageTexts,
  PAGE_LANGUAGE_TAGS,
  readCatalog,
} from '../../../src/page/i18n/page-languages.js';

const languages = loadPageLanguages();
const english = languages[0]!;
const placeholders = (text: string) => new Set([...text.matchAll(/\{([a-zA-Z]+)\}/g)].map((m) => m[1]!));
const placeholdersOf = (message: Message) => new Set(messageTexts(message).flatMap((text) => [...placeholders(text)]));

/** A plural category that only one integer of 0–1000 falls in (Arabic's `two` is 2): its form may write the number out. */
function singleNumberCategories(tag: string): Set<string> {
  const rules = new Intl.PluralRules(tag);
  const seen = new Map<string, number>();
  for (let n = 0; n <= 1000; n++) seen.set(rules.select(n), (seen.get(rules.select(n)) ?? 0) + 1);
  return new Set([...seen].filter(([, count]) => count === 1).map(([category]) => category));
}

describe('the page catalogs', () => {
  it('are one per language, English first and the source, none of the translations yet checked by a native speaker', () => {
    expect(languages.map((l) => l.tag)).toEqual([...PAGE_LANGUAGE_TAGS]);
    expect(english.review).toBe('source');
    // Honest: every translation was written by one engineer, not reviewed by a native speaker (docs/people.md).
    expect(languages.slice(1).map((l) => l.review)).toEqual(languages.slice(1).map(() => 'none'));
    expect(languages.filter((l) => l.dir === 'rtl').map((l) => l.tag)).toEqual(['fa', 'ar']);
  });

  for (const language of languages.slice(1)) {
    describe(language.tag, () => {
      it('has every key of the English catalog and no other', () => {
        expect(Object.keys(language.messages).sort()).toEqual(Object.keys(english.messages).sort());
      });

      it('keeps every placeholder of the source, and adds none', () => {
        const wrong = Object.entries(english.messages).flatMap(([key, source]) => {
          const translation = language.messages[key];
          if (translation === undefined) return [];
          const wanted = placeholdersOf(source);
          const single = singleNumberCategories(language.tag);
          const forms: [string, string][] =
            typeof translation === 'string' ? [['', translation]] : (Object.entries(translation) as [string, string][]);
          return forms.flatMap(([category, text]) => {
            const has = placeholders(text);
            const missing = [...wanted].filter((p) => !has.has(p) && !(p === 'count' && single.has(category)));
            const extra = [...has].filter((p) => !wanted.has(p));
            return missing.length || extra.length
              ? [`${key}${category ? `.${category}` : ''}: -${missing} +${extra}`]
              : [];
          });
        });
        expect(wrong).toEqual([]);
      });

      it('has, for each plural message, exactly the plural forms Intl.PluralRules knows in the language', () => {
        const categories = new Intl.PluralRules(language.tag).resolvedOptions().pluralCategories.slice().sort();
        for (const [key, source] of Object.entries(english.messages)) {
          if (typeof source === 'string') continue;
          const translation = language.messages[key];
          expect(typeof translation, key).toBe('object');
          expect(Object.keys(translation as object).sort(), key).toEqual(categories);
        }
      });

      it('is a translation: no message that has words is left in English', () => {
        // "host" is the word Indonesian and Spanish use too.
        const borrowed = new Set([`id machine.host`, `id watch.hostNamed`, `es machine.host`]);
        const same = Object.entries(language.messages).filter(
          ([key, m]) =>
            typeof m === 'string' &&
            m === english.messages[key] &&
            /[a-z]{3}/.test(m) &&
            !borrowed.has(`${language.tag} ${key}`),
        );
        expect(same.map(([key]) => key)).toEqual([]);
      });
    });
  }

  it('hold no bidi override or isolate character', () => {
    for (const language of languages)
      for (const [key, message] of Object.entries(language.messages))
        expect(
          messageTexts(message).some((text) => BIDI_CONTROLS.test(text)),
          `${language.tag} ${key}`,
        ).toBe(false);
  });

  it('keep the zero-width non-joiner Persian needs', () => {
    const persian = languages.find((l) => l.tag === 'fa')!;
    expect(
      Object.values(persian.messages)
        .flatMap(messageTexts)
        .some((text) => text.includes('\u200c')),
    ).toBe(true);
  });

  it('refuse, when read, a catalog with any bidi override or isolate character, and accept ZWNJ', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'slowdns-catalog-'));
    try {
      const write = async (name: string, text: string) => {
        const file = join(folder, name);
        const catalog = {
          language: { tag: 'fa', name: 'فارسی', dir: 'rtl', review: 'none' },
          messages: { 'page.title': text },
        };
        await writeFile(file, JSON.stringify(catalog));
        return pathToFileURL(file);
      };
      for (const control of [
        '\u202a',
        '\u202b',
        '\u202c',
        '\u202d',
        '\u202e',
        '\u2066',
        '\u2067',
        '\u2068',
        '\u2069',
      ]) {
        const file = await write('bidi.json', `دریافت ${control}کد نصب`);
        expect(() => readCatalog(file), `U+${control.codePointAt(0)!.toString(16)}`).toThrow(/bidi/);
      }
      expect(readCatalog(await write('zwnj.json', 'نصب\u200cکننده')).messages['page.title']).toBe('نصب\u200cکننده');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
