import { html } from '../html.js';
import { durationInWords } from './i18n/duration-in-words.js';
import type { PageLanguage } from './i18n/page-languages.js';
import { translator } from './i18n/translate.js';
import { renderPage } from './page-frame.js';

/**
 * What a person over the new-session limit sees at /slowdns: a page saying when to come back, not a JSON
 * envelope, in the language the page would have spoken. Only what the service computed is put into it
 * (escaped all the same, as `html` does).
 */
export interface ComeBackPageOptions {
  language: PageLanguage;
  languages: readonly PageLanguage[];
  styleUrl: string;
  /** Seconds until the exhausted bucket ends (what `Retry-After` says). */
  retryAfterSeconds: number;
  /** When that is. */
  resetAt: Date;
}

export function renderComeBackPage({
  language,
  languages,
  styleUrl,
  retryAfterSeconds,
  resetAt,
}: ComeBackPageOptions): string {
  const t = translator(language);
  // "11:00 UTC", "۱۱:۰۰ (UTC)", "UTC 11:00": the hour as the language writes it, always in UTC.
  const clock = new Intl.DateTimeFormat(language.tag, {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(resetAt);
  const wait = durationInWords(retryAfterSeconds, language.tag, t('wait.lessThanAMinute').text);
  return renderPage({
    language,
    languages,
    t,
    title: t('comeBack.title'),
    styleUrl,
    heading: t('comeBack.heading'),
    content: html`  <section class="card" aria-labelledby="wait-heading">
    <h2 id="wait-heading">${t('comeBack.waitHeading', { wait })}</h2>
    <p>${t('comeBack.why', { time: html`<strong>${clock}</strong>` })}</p>
    <p class="fine-print">${t('comeBack.keepWorking')}</p>
    <p><a href="/slowdns">${t('comeBack.tryAgain')}</a></p>
  </section>`,
  });
}
