import { html } from '../html.js';
import { renderPage } from './page-frame.js';

/**
 * What a person over the new-session limit sees at /slowdns: a page saying when to come back, not a JSON
 * envelope. Only what the service computed is put into it (escaped all the same, as `html` does).
 */
export interface ComeBackPageOptions {
  styleUrl: string;
  /** Seconds until the exhausted bucket ends (what `Retry-After` says). */
  retryAfterSeconds: number;
  /** When that is. */
  resetAt: Date;
}

export function waitInWords(seconds: number): string {
  if (seconds < 60) return 'less than a minute';
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return minutes === 1 ? '1 minute' : `${minutes} minutes`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const h = hours === 1 ? '1 hour' : `${hours} hours`;
  return rest ? `${h} and ${rest === 1 ? '1 minute' : `${rest} minutes`}` : h;
}

export function renderComeBackPage({ styleUrl, retryAfterSeconds, resetAt }: ComeBackPageOptions): string {
  const clock = resetAt.toISOString().slice(11, 16);
  return renderPage({
    title: 'Come back later',
    styleUrl,
    heading: 'Please come back later',
    content: html`  <section class="card" aria-labelledby="wait-heading">
    <h2 id="wait-heading">Come back in ${waitInWords(retryAfterSeconds)}</h2>
    <p>This page has been opened in too many new browsers from your network in the last hour, so it cannot
    start another one right now. Try again after <strong>${clock} UTC</strong>.</p>
    <p class="fine-print">A browser that already has this page open can keep using it. Codes you already
    have keep working until they expire.</p>
    <p><a href="/slowdns">Try again</a></p>
  </section>`,
  });
}
