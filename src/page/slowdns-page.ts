import { html, type Html } from '../html.js';
import { durationInWords } from './i18n/duration-in-words.js';
import type { PageLanguage } from './i18n/page-languages.js';
import { type Translate, translator } from './i18n/translate.js';
import { renderPage } from './page-frame.js';

/**
 * The /slowdns page: server-rendered markup for every state; `app.js` (served by this service) only
 * fills it in and switches states. Every word comes from the language's catalog; nothing here comes from the request; `html` escapes what is put in all the same.
 */
export interface SlowdnsPageOptions {
  language: PageLanguage;
  /** The picker's languages. */
  languages: readonly PageLanguage[];
  /** page-kit.js: what the other scripts share; loaded first. */
  kitScriptUrl: string;
  scriptUrl: string;
  watchScriptUrl: string;
  approvalScriptUrl: string;
  styleUrl: string;
  installCodeTtlSeconds: number;
  /** `APPROVAL_POLICY` (DESIGN §14): whether the page offers, presets or leaves out "Ask me before a machine can use this code". */
  approvalPolicy: 'off' | 'optional' | 'required';
}

/**
 * Only this service's own script and stylesheet: no inline script or style, no eval. `img-src data:`
 * is for the empty `data:` favicon, which keeps the browser from asking for /favicon.ico.
 */
export const SLOWDNS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** "15 minutes", "1 hour": the code's lifetime in the language's words. */
function lifetimeInWords(seconds: number, language: PageLanguage, t: Translate): string {
  return durationInWords(seconds, language.tag, t('wait.lessThanAMinute').text);
}

/**
 * "Ask me before a machine can use this code": offered unticked (`optional`), ticked and fixed (`required`:
 * the service asks about every code), left out (`off`). app.js sends what it says with the issue.
 */
function approvalChoice(policy: SlowdnsPageOptions['approvalPolicy'], t: Translate): Html | '' {
  if (policy === 'off') return '';
  const required = policy === 'required';
  const help = required ? t('page.askFirstHelpRequired') : t('page.askFirstHelpOptional');
  return html`
    <div class="choice">
      <input type="checkbox" id="require-approval" aria-describedby="require-approval-help"${required ? ' checked disabled' : ''}>
      <label for="require-approval">${t('page.askFirst')}</label>
      <p id="require-approval-help" class="fine-print">${help}</p>
      <p id="require-approval-scope" class="fine-print" role="status" hidden></p>
    </div>`;
}

/**
 * The machines that prechecked a code issued with approval, each with Approve and Deny (approval.js fills
 * the list from the template, one line per precheck). What a machine is (address, id, key, version) reads
 * left to right in every language, and one click selects the whole of it.
 */
function approvalSection(t: Translate): Html {
  const strong = (key: string) => html`<strong>${t(key)}</strong>`;
  return html`
      <section id="approvals" class="approvals" aria-labelledby="approvals-heading" hidden>
        <h4 id="approvals-heading" class="approvals-heading">${t('approval.heading')}</h4>
        <p class="approvals-count" data-part="count"></p>
        <ul id="approval-list" class="approval-list"></ul>
        <template id="approval-template">
          <li class="approval">
            <dl class="machine">
              <div><dt>${t('machine.address')}</dt><dd class="mono value" dir="ltr" data-part="address"></dd></div>
              <div><dt>${t('machine.id')}</dt><dd class="mono value" dir="ltr" data-part="machine-id"></dd></div>
              <div><dt>${t('machine.key')}</dt><dd class="fingerprint value" dir="ltr" data-part="key"></dd></div>
              <div><dt>${t('machine.installer')}</dt><dd class="mono value" dir="ltr" data-part="version"></dd></div>
              <div><dt>${t('machine.checked')}</dt><dd data-part="when"></dd></div>
            </dl>
            <p class="approval-state" tabindex="-1" data-part="state"></p>
            <div class="approval-actions" role="group" data-part="actions">
              <p class="fine-print">${t('approval.explain', { approve: strong('approval.approve'), deny: strong('approval.deny') })}</p>
              <div class="confirm-actions">
                <button type="button" class="button primary" data-part="approve">${t('approval.approve')}</button>
                <button type="button" class="button secondary" data-part="deny" aria-expanded="false" aria-controls="deny-confirm">${t('approval.deny')}</button>
              </div>
              <div class="confirm" role="group" data-part="deny-confirm" data-id="deny-confirm" aria-labelledby="deny-question" hidden>
                <p class="confirm-question" data-id="deny-question">${t('approval.denyQuestion')}</p>
                <div class="confirm-actions">
                  <button type="button" class="button danger" data-part="deny-yes">${t('approval.denyYes')}</button>
                  <button type="button" class="button secondary" data-part="deny-no">${t('approval.denyNo')}</button>
                </div>
              </div>
            </div>
            <p class="fine-print approval-note" role="status" data-part="note" hidden></p>
          </li>
        </template>
      </section>`;
}

export function renderSlowdnsPage(options: SlowdnsPageOptions): string {
  const { language, languages, installCodeTtlSeconds, approvalPolicy } = options;
  const t = translator(language);
  return renderPage({
    language,
    languages,
    t,
    title: t('page.title'),
    styleUrl: options.styleUrl,
    scriptUrls: [options.kitScriptUrl, options.scriptUrl, options.watchScriptUrl, options.approvalScriptUrl],
    heading: t('page.title'),
    lead: t('page.lead', { lifetime: lifetimeInWords(installCodeTtlSeconds, language, t) }),
    content: html`  <section class="card" aria-labelledby="code-heading">
    <h2 id="code-heading" class="visually-hidden">${t('page.codeHeading')}</h2>${approvalChoice(approvalPolicy, t)}
    <button type="button" id="issue-button" class="button primary wide" aria-controls="replace-confirm">${t('code.issue')}</button>
    <div id="replace-confirm" class="confirm" role="group" aria-labelledby="replace-question" hidden>
      <p id="replace-question" class="confirm-question">${t('page.replaceQuestion')}</p>
      <div class="confirm-actions">
        <button type="button" id="replace-yes" class="button secondary">${t('page.replaceYes')}</button>
        <button type="button" id="replace-no" class="button primary">${t('page.replaceNo')}</button>
      </div>
    </div>
    <p id="status" class="status" role="status" aria-live="polite"></p>
    <noscript><p class="status" data-tone="error">${t('page.noscript')}</p></noscript>

    <div id="result" class="result" role="group" aria-labelledby="code-label" hidden>
      <p id="code-label" class="label">${t('page.codeLabel')}</p>
      <div class="code-row">
        <code id="install-code" class="code value" dir="ltr"></code>
        <button type="button" id="copy-button" class="button primary">${t('page.copy')}</button>
      </div>
      <dl class="facts">
        <div><dt id="countdown-label">${t('page.expiresIn')}</dt><dd><span id="countdown" role="timer" aria-live="off"></span></dd></div>
        <div><dt>${t('page.hint')}</dt><dd><bdi id="code-hint" class="hint" dir="ltr"></bdi></dd></div>
      </dl>
      <p id="code-fine-print" class="fine-print">${t('page.codeFinePrint')}</p>
    </div>

    <div id="watch" class="watch" role="group" aria-labelledby="watch-heading" hidden>
      <h3 id="watch-heading" class="watch-heading">${t('page.watchHeading', { hint: html`<bdi id="watch-hint" class="hint" dir="ltr"></bdi>` })}</h3>
      <p id="watch-state" class="watch-state" tabindex="-1" role="status" aria-live="polite" aria-atomic="true"></p>${approvalSection(t)}
      <dl id="watch-machine" class="machine" hidden>
        <div id="machine-host-row"><dt>${t('machine.host')}</dt><dd id="machine-host" class="value" dir="ltr"></dd></div>
        <div id="machine-ip-row"><dt>${t('machine.publicIp')}</dt><dd id="machine-ip" class="value" dir="ltr"></dd></div>
        <div id="machine-seen-row"><dt>${t('machine.checkedFrom')}</dt><dd id="machine-seen" class="value" dir="ltr"></dd></div>
        <div><dt>${t('machine.id')}</dt><dd id="machine-id" class="value" dir="ltr"></dd></div>
        <div><dt>${t('machine.key')}</dt><dd id="machine-key" class="fingerprint value" dir="ltr"></dd></div>
        <div><dt>${t('machine.when')}</dt><dd id="machine-when"></dd></div>
      </dl>
      <p id="watch-note" class="fine-print" hidden></p>
      <div id="cancel-area" class="cancel" hidden>
        <button type="button" id="cancel-button" class="button quiet" aria-expanded="false" aria-controls="cancel-confirm">${t('page.cancel')}</button>
        <div id="cancel-confirm" class="confirm" role="group" aria-labelledby="cancel-question" hidden>
          <p id="cancel-question" class="confirm-question">${t('page.cancelQuestion')}</p>
          <div class="confirm-actions">
            <button type="button" id="cancel-yes" class="button danger">${t('page.cancelYes')}</button>
            <button type="button" id="cancel-no" class="button secondary">${t('page.cancelNo')}</button>
          </div>
        </div>
      </div>
    </div>
  </section>

  <section id="next" class="next" aria-labelledby="next-heading" hidden>
    <h2 id="next-heading">${t('page.nextHeading')}</h2>
    <ol>
      <li>${t('page.nextRun')}</li>
      <li>${t('page.nextEnter')}</li>
      <li id="next-approve" hidden>${t('page.nextApprove')}</li>
      <li>${t('page.nextCheck')}</li>
    </ol>
  </section>`,
  });
}
