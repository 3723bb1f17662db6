import type { ConsoleView } from './console-frame.js';
import { durationInWords } from '../page/i18n/duration-in-words.js';
import { html } from '../html.js';

export type SignInNotice = 'refused' | 'ended' | 'signed_out' | 'disabled' | undefined;

const NOTICES: Record<Exclude<SignInNotice, undefined>, { tone: string; text: string }> = {
  refused: {
    tone: 'error',
    text: 'That token was not accepted: it is unknown, revoked or expired. Check it and try again.',
  },
  ended: {
    tone: 'error',
    text: 'Your session has ended (signed out elsewhere, idle too long, or its token was revoked). Sign in again.',
  },
  signed_out: { tone: 'success', text: 'You are signed out.' },
  disabled: {
    tone: 'error',
    text: 'The console is off: the service has no ADMIN_TOKEN set (see the operators’ guide).',
  },
};

/**
 * The sign-in form: an operator token, posted (never in the URL), never kept by the page. `next` is the
 * console view asked for, opened after signing in.
 */
export function signInView(
  notice: SignInNotice,
  next: string | undefined,
  ways: { sso: boolean; tokens: boolean } = { sso: false, tokens: true },
): ConsoleView {
  const message = notice ? NOTICES[notice] : undefined;
  const ssoHref = next ? `/admin/sign-in/oidc?next=${encodeURIComponent(next)}` : '/admin/sign-in/oidc';
  return {
    title: 'Sign in',
    heading: 'Sign in to the console',
    content: html`  <section class="card sign-in" aria-labelledby="sign-in-heading">
    <h2 id="sign-in-heading" class="visually-hidden">Sign in</h2>
    ${message ? html`<p id="sign-in-notice" class="status" data-tone="${message.tone}" role="${message.tone === 'error' ? 'alert' : 'status'}">${message.text}</p>` : ''}
    ${ways.sso ? html`<p><a id="sign-in-sso" class="button primary" href="${ssoHref}">Sign in with your identity provider</a></p>` : ''}
    ${ways.tokens ? tokenForm(notice, next) : ''}
  </section>`,
  };
}

function tokenForm(notice: SignInNotice, next: string | undefined) {
  return html`<form method="post" action="/admin/sign-in" class="stack">
      <label for="token">Operator token</label>
      <input id="token" name="token" type="password" required autocomplete="off" spellcheck="false" autocapitalize="off" aria-describedby="token-help"${notice === 'refused' ? html` aria-invalid="true"` : ''}>
      <p id="token-help" class="fine-print">A named operator token (<code>sdo_…</code>, from <code>slowdns tokens create</code>) or ADMIN_TOKEN. It opens a session in this browser and is not kept here; revoking the token ends the session.</p>
      ${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
      <button type="submit" class="button primary">Sign in</button>
    </form>`;
}

/** Too many refused sign-ins from this address: when to try again. */
export function signInWaitView(retryAfterSeconds: number, resetAt: Date): ConsoleView {
  return {
    title: 'Try again later',
    heading: 'Too many refused sign-ins',
    content: html`  <section class="card" aria-labelledby="wait-heading">
    <h2 id="wait-heading">Try again in ${durationInWords(retryAfterSeconds, 'en', 'less than a minute')}</h2>
    <p>Too many sign-ins with a wrong token came from your network in this hour, so no sign-in is accepted from it
    until <strong>${resetAt.toISOString().slice(11, 16)} UTC</strong>, even with the right token.</p>
    <p><a href="/admin">Back to the sign-in form</a></p>
  </section>`,
  };
}
