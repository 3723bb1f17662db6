import { choosableFromHeader, type PageLanguage } from './page-languages.js';

/** The cookie that remembers the language picked with a `?lang=` link. */
export const LANGUAGE_COOKIE = 'slowdns_lang';

/** What the page is asked for: the `?lang=` link, the cookie it left, the browser's `Accept-Language`. */
export interface LanguageRequest {
  query?: string | undefined;
  cookie?: string | undefined;
  acceptLanguage?: string | undefined;
}

/** A tag as the page knows it, ignoring case: `zh` and `zh-CN`, `zh-SG` and `zh-Hans-*` are Simplified Chinese. */
export function findByTag(languages: readonly PageLanguage[], requested: string): PageLanguage | undefined {
  const tag = requested.trim().toLowerCase();
  const exact = languages.find((language) => language.tag.toLowerCase() === tag);
  if (exact) return exact;
  const [primary, ...subtags] = tag.split('-');
  if (primary === 'zh') {
    // Traditional Chinese (zh-Hant, zh-TW, zh-HK, zh-MO) is not Simplified: no match, rather than the wrong script.
    const traditional = subtags.some((subtag) => ['hant', 'tw', 'hk', 'mo'].includes(subtag));
    return traditional ? undefined : languages.find((language) => language.tag === 'zh-Hans');
  }
  return languages.find((language) => language.tag.toLowerCase() === primary);
}

/** The ranges of an `Accept-Language` header, best first (RFC 9110 §12.5.4); those with q=0 left out. */
export function acceptedRanges(header: string): string[] {
  return header
    .split(',')
    .slice(0, 32)
    .map((item, index) => {
      const [range = '', ...params] = item.split(';').map((part) => part.trim());
      const q = params.find((param) => /^q=/i.test(param));
      const weight = q ? Number(q.slice(2)) : 1;
      return { range, weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter(({ range, weight }) => range !== '' && weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map(({ range }) => range);
}

/**
 * The link first (the person chose), then the cookie it left, then the header, then English. From the
 * header only a language a native speaker has checked (or English) is taken: a browser's wish is not a
 * choice of an unchecked translation. `languages` holds English first.
 */
export function chooseLanguage(languages: readonly PageLanguage[], request: LanguageRequest): PageLanguage {
  for (const picked of [request.query, request.cookie]) {
    const language = picked ? findByTag(languages, picked) : undefined;
    if (language) return language;
  }
  const fromHeader = languages.filter(choosableFromHeader);
  for (const range of acceptedRanges(request.acceptLanguage ?? '')) {
    if (range === '*') break;
    const language = findByTag(fromHeader, range);
    if (language) return language;
  }
  return languages[0]!;
}
