import { describe, expect, it } from 'vitest';
import { acceptedRanges, chooseLanguage } from '../../../src/page/i18n/choose-language.js';
import { loadPageLanguages, type PageLanguage } from '../../../src/page/i18n/page-languages.js';
import { useTestApp } from '../../support/test-app.js';

const languages = loadPageLanguages();
/** The same catalogs, as they will be once native speakers have checked Persian and Simplified Chinese. */
const checked: PageLanguage[] = languages.map((l) =>
  ['fa', 'zh-Hans'].includes(l.tag) ? { ...l, review: 'native-speaker' } : l,
);
const choose = (request: Parameters<typeof chooseLanguage>[1], from = languages) => chooseLanguage(from, request).tag;

describe('choosing the page language', () => {
  it('never takes a translation no native speaker has checked from Accept-Language', () => {
    expect(choose({ acceptLanguage: 'fa-IR, fa;q=0.9' })).toBe('en');
    expect(choose({ acceptLanguage: 'ar, ru, tr, id, es, zh' })).toBe('en');
  });

  it('takes a checked one from Accept-Language, best q first, and bare zh as Simplified Chinese', () => {
    expect(choose({ acceptLanguage: 'fa-IR,fa;q=0.9,en;q=0.8' }, checked)).toBe('fa');
    expect(choose({ acceptLanguage: 'de;q=1, en;q=0.5, zh;q=0.8' }, checked)).toBe('zh-Hans');
    expect(choose({ acceptLanguage: 'zh-CN' }, checked)).toBe('zh-Hans');
    expect(choose({ acceptLanguage: 'zh-Hans-SG' }, checked)).toBe('zh-Hans');
    // Traditional Chinese is not served Simplified: the next choice, or English.
    expect(choose({ acceptLanguage: 'zh-TW, zh-Hant;q=0.9' }, checked)).toBe('en');
    expect(choose({ acceptLanguage: 'fa;q=0, *' }, checked)).toBe('en');
  });

  it('takes a ?lang= link or the cookie it left over the header, and ignores a tag it does not speak', () => {
    expect(choose({ query: 'fa', acceptLanguage: 'es' })).toBe('fa');
    expect(choose({ query: 'zh', acceptLanguage: 'es' })).toBe('zh-Hans');
    expect(choose({ cookie: 'ar', acceptLanguage: 'en' })).toBe('ar');
    expect(choose({ query: 'tr', cookie: 'ar' })).toBe('tr');
    expect(choose({ query: 'de', cookie: 'ru' })).toBe('ru');
    expect(choose({ query: 'x'.repeat(35) })).toBe('en');
  });

  it('reads Accept-Language ranges by weight, keeping the order of equal ones', () => {
    expect(acceptedRanges('es;q=0.5, fa, ar;q=0.5, ru;q=0')).toEqual(['fa', 'es', 'ar']);
    expect(acceptedRanges(' , ;q=1, tr;q=abc')).toEqual([]);
  });
});

describe('GET /slowdns in the person’s language', () => {
  const t = useTestApp();
  const page = async (path: string, headers: Record<string, string> = {}) => {
    const response = await t.request(path, { headers });
    return { response, html: await response.text() };
  };

  it('answers English with Vary: Accept-Language, Cookie when the browser asks for an unchecked translation', async () => {
    const { response, html } = await page('/slowdns', { 'Accept-Language': 'fa-IR,fa;q=0.9' });
    expect(response.status).toBe(200);
    expect(response.headers.get('vary')).toBe('Accept-Language, Cookie');
    expect(response.headers.get('content-language')).toBe('en');
    expect(html).toContain('<html lang="en" dir="ltr">');
    // The picker offers every language, each in its own words, Persian among them.
    expect(html).toContain('<a href="/slowdns?lang=fa" hreflang="fa" lang="fa" dir="rtl">فارسی</a>');
    expect(html).toContain('aria-current="true">English</a>');
  });

  it('speaks Persian right to left after ?lang=fa, and remembers it in the slowdns_lang cookie', async () => {
    const { response, html } = await page('/slowdns?lang=fa');
    expect(response.headers.get('content-language')).toBe('fa');
    expect(response.headers.get('vary')).toBe('Accept-Language, Cookie');
    const cookies = response.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith('slowdns_lang='))).toBe(
      'slowdns_lang=fa; Max-Age=31536000; Path=/slowdns; HttpOnly; SameSite=Lax',
    );
    expect(cookies.some((c) => c.startsWith('slowdns_browser='))).toBe(true);
    expect(html).toContain('<html lang="fa" dir="rtl">');
    expect(html).toContain('<h1>دریافت کد نصب</h1>');
    // The code, the addresses and the host names read left to right inside the right-to-left page.
    expect(html).toContain('<code id="install-code" class="code value" dir="ltr"></code>');
    expect(html).toContain('<dd id="machine-ip" class="value" dir="ltr"></dd>');
    // Said plainly that no native speaker has checked it yet.
    expect(html).toContain('این ترجمه هنوز توسط یک فارسی\u200cزبان بازبینی نشده است.');
    // The lifetime through Intl: "15 minutes" in Persian digits.
    expect(html).toContain('۱۵ دقیقه پس از دریافت');

    const again = await page('/slowdns', { Cookie: 'slowdns_lang=fa', 'Accept-Language': 'en' });
    expect(again.response.headers.get('content-language')).toBe('fa');
    expect(again.response.headers.getSetCookie().some((c) => c.startsWith('slowdns_lang='))).toBe(false);
  });

  it('serves Simplified Chinese for ?lang=zh, and English with no cookie for a tag it does not speak', async () => {
    const chinese = await page('/slowdns?lang=zh');
    expect(chinese.response.headers.get('content-language')).toBe('zh-Hans');
    expect(chinese.response.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^slowdns_lang=zh-Hans;/));
    const unknown = await page('/slowdns?lang=de');
    expect(unknown.response.status).toBe(200);
    expect(unknown.response.headers.get('content-language')).toBe('en');
    expect(unknown.response.headers.getSetCookie().some((c) => c.startsWith('slowdns_lang='))).toBe(false);
  });

  it('carries the catalog for its scripts as a data block the Content-Security-Policy never runs', async () => {
    const { response, html } = await page('/slowdns?lang=ar');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("form-action 'none'");
    const block = /<script type="application\/json" id="page-messages">([\s\S]*?)<\/script>/.exec(html)?.[1];
    const messages = JSON.parse(block!) as Record<string, unknown>;
    expect(messages['approval.approve']).toBe('موافقة');
    expect(Object.keys(messages)).toEqual(Object.keys(languages[0]!.messages));
  });

  it('says when to come back in the language picked, over the new-session limit', async () => {
    t.clock.set('2026-11-22T10:20:00Z');
    for (let i = 0; i < 30; i++) expect((await t.request('/slowdns')).status).toBe(200);
    const { response, html } = await page('/slowdns?lang=ru');
    expect(response.status).toBe(429);
    expect(response.headers.get('content-language')).toBe('ru');
    expect(response.headers.get('vary')).toBe('Accept-Language, Cookie');
    // The language is remembered; no session is opened.
    expect(response.headers.getSetCookie()).toEqual([
      'slowdns_lang=ru; Max-Age=31536000; Path=/slowdns; HttpOnly; SameSite=Lax',
    ]);
    expect(html).toContain('<h2 id="wait-heading">Зайдите через 40 минут</h2>');
    expect(html).toContain('Попробуйте снова после <strong>11:00 UTC</strong>.');
  });
});
