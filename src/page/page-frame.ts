import { html, trusted, type Html } from '../html.js';
import { PAGE_LANGUAGE_TAGS, type PageLanguage } from './i18n/page-languages.js';
import type { Translate } from './i18n/translate.js';

/**
 * What every HTML page of this service under /slowdns shares: the head (charset, viewport, light and
 * dark schemes, the empty favicon, the stylesheet, deferred scripts), the language and its direction, the
 * language picker and the masthead.
 */
export interface PageFrame {
  language: PageLanguage;
  /** The picker's languages, in their own names. */
  languages: readonly PageLanguage[];
  t: Translate;
  /** The title after "SlowDNS · ". */
  title: Html;
  styleUrl: string;
  /** Loaded with `defer`, in this order; with scripts, the page also carries the catalog they speak from. */
  scriptUrls?: string[];
  heading: Html;
  /** The masthead's lead paragraph, if any. */
  lead?: Html;
  /** What follows the masthead in `<main>` (indented by two spaces). */
  content: Html;
}

/**
 * The catalog for the page's scripts, as a JSON data block: not a script (the Content-Security-Policy runs none
 * inline, and a data block is never run), read by page-kit.js. `<` is escaped so that no text can close it.
 */
function messagesBlock(language: PageLanguage): Html {
  const json = JSON.stringify(language.messages).replace(/</g, '\\u003c');
  return html`<script type="application/json" id="page-messages">${trusted(json)}</script>\n`;
}

/**
 * `?lang=` links, each in its own language (the page's `form-action 'none'` rules out a form). The choice is
 * remembered in a cookie. The pseudo-locale is not listed.
 */
function languagePicker(language: PageLanguage, languages: readonly PageLanguage[], t: Translate): Html {
  const listed = languages.filter((l) => (PAGE_LANGUAGE_TAGS as readonly string[]).includes(l.tag));
  const links = listed.map(
    (l) =>
      html`<li><a href="/slowdns?lang=${l.tag}" hreflang="${l.tag}" lang="${l.tag}" dir="${l.dir}"${l.tag === language.tag ? trusted(' aria-current="true"') : ''}>${l.name}</a></li>`,
  );
  return html`<nav class="languages" aria-label="${t('page.languages')}"><ul>${links}</ul></nav>`;
}

export function renderPage(frame: PageFrame): string {
  const { language, languages, t, title, styleUrl, scriptUrls = [], heading, lead, content } = frame;
  const scripts = scriptUrls.map((url) => html`<script src="${url}" defer></script>\n`);
  const unchecked =
    language.review === 'none' ? html`\n    <p class="fine-print translation-note">${t('page.notReviewed')}</p>` : '';
  return html`<!doctype html>
<html lang="${language.tag}" dir="${language.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>SlowDNS · ${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${styleUrl}">
${scripts.length ? messagesBlock(language) : ''}${scripts}</head>
<body>
<main class="page">
  <header class="masthead">
    ${languagePicker(language, languages, t)}
    <p class="product" lang="en">SlowDNS</p>
    <h1>${heading}</h1>${lead ? html`\n    <p class="lead">${lead}</p>` : ''}${unchecked}
  </header>

${content}
</main>
</body>
</html>
`.text;
}
