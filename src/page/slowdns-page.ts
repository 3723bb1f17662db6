import { html, type Html } from '../html.js';
import { renderPage } from './page-frame.js';

/**
 * The /slowdns page: server-rendered markup for every state; `app.js` (served by this service) only
 * fills it in and switches states. Nothing here comes from the request; `html` escapes what is put in all the same.
 */
export interface SlowdnsPageOptions {
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

function lifetimeInWords(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

/**
 * "Ask me before a machine can use this code": offered unticked (`optional`), ticked and fixed (`required`:
 * the service asks about every code), left out (`off`). app.js sends what it says with the issue.
 */
function approvalChoice(policy: SlowdnsPageOptions['approvalPolicy']): Html | '' {
  if (policy === 'off') return '';
  const required = policy === 'required';
  const help = required
    ? 'This service asks you about every machine: when the installer checks the code, it waits until you approve its machine here.'
    : 'When the installer checks the code, it then waits until you approve its machine on this page. A stolen code is useless without your yes.';
  return html`
    <div class="choice">
      <input type="checkbox" id="require-approval" aria-describedby="require-approval-help"${required ? ' checked disabled' : ''}>
      <label for="require-approval">Ask me before a machine can use this code</label>
      <p id="require-approval-help" class="fine-print">${help}</p>
      <p id="require-approval-scope" class="fine-print" role="status" hidden></p>
    </div>`;
}

/**
 * The machines that prechecked a code issued with approval, each with Approve and Deny (approval.js fills
 * the list from the template, one line per precheck).
 */
const approvalSection = html`
      <section id="approvals" class="approvals" aria-labelledby="approvals-heading" hidden>
        <h4 id="approvals-heading" class="approvals-heading">Machines that checked this code</h4>
        <p class="approvals-count" data-part="count"></p>
        <ul id="approval-list" class="approval-list"></ul>
        <template id="approval-template">
          <li class="approval">
            <dl class="machine">
              <div><dt>Address</dt><dd class="mono" data-part="address"></dd></div>
              <div><dt>Machine id</dt><dd class="mono" data-part="machine-id"></dd></div>
              <div><dt>SSH key</dt><dd class="fingerprint" data-part="key"></dd></div>
              <div><dt>Installer</dt><dd class="mono" data-part="version"></dd></div>
              <div><dt>Checked</dt><dd data-part="when"></dd></div>
            </dl>
            <p class="approval-state" tabindex="-1" data-part="state"></p>
            <div class="approval-actions" role="group" data-part="actions">
              <p class="fine-print"><strong>Approve</strong> only if this is the server you are installing (compare its
              address and SSH key): this machine, and no other, can then install with the code. <strong>Deny</strong>
              cancels the code: this machine and every other are refused.</p>
              <div class="confirm-actions">
                <button type="button" class="button primary" data-part="approve">Approve</button>
                <button type="button" class="button secondary" data-part="deny" aria-expanded="false" aria-controls="deny-confirm">Deny</button>
              </div>
              <div class="confirm" role="group" data-part="deny-confirm" data-id="deny-confirm" aria-labelledby="deny-question" hidden>
                <p class="confirm-question" data-id="deny-question">Deny this machine? The code is cancelled: this machine and
                every other are refused, and you need a new code to install. This cannot be undone.</p>
                <div class="confirm-actions">
                  <button type="button" class="button danger" data-part="deny-yes">Yes, deny this machine</button>
                  <button type="button" class="button secondary" data-part="deny-no">Keep waiting</button>
                </div>
              </div>
            </div>
            <p class="fine-print approval-note" role="status" data-part="note" hidden></p>
          </li>
        </template>
      </section>`;

export function renderSlowdnsPage({
  kitScriptUrl,
  scriptUrl,
  watchScriptUrl,
  approvalScriptUrl,
  styleUrl,
  installCodeTtlSeconds,
  approvalPolicy,
}: SlowdnsPageOptions): string {
  return renderPage({
    title: 'Get an install code',
    styleUrl,
    scriptUrls: [kitScriptUrl, scriptUrl, watchScriptUrl, approvalScriptUrl],
    heading: 'Get an install code',
    lead: html`The SlowDNS installer on your server asks for an install code. Get one here: it works
    for one installation and expires ${lifetimeInWords(installCodeTtlSeconds)} after you get it.`,
    content: html`  <section class="card" aria-labelledby="code-heading">
    <h2 id="code-heading" class="visually-hidden">Install code</h2>${approvalChoice(approvalPolicy)}
    <button type="button" id="issue-button" class="button primary wide" aria-controls="replace-confirm">Get an install code</button>
    <div id="replace-confirm" class="confirm" role="group" aria-labelledby="replace-question" hidden>
      <p id="replace-question" class="confirm-question">Replace the code on screen? It is shown only once: after this, this
      page shows only the new code, and only a few codes can be had each hour. The code on screen keeps working
      until it expires or you cancel it.</p>
      <div class="confirm-actions">
        <button type="button" id="replace-yes" class="button secondary">Yes, get a new code</button>
        <button type="button" id="replace-no" class="button primary">Keep this code</button>
      </div>
    </div>
    <p id="status" class="status" role="status" aria-live="polite"></p>
    <noscript><p class="status" data-tone="error">This page needs JavaScript to request an install code.</p></noscript>

    <div id="result" class="result" role="group" aria-labelledby="code-label" hidden>
      <p id="code-label" class="label">Your install code</p>
      <div class="code-row">
        <code id="install-code" class="code"></code>
        <button type="button" id="copy-button" class="button primary">Copy code</button>
      </div>
      <dl class="facts">
        <div><dt id="countdown-label">Expires in</dt><dd><span id="countdown" role="timer" aria-live="off"></span></dd></div>
        <div><dt>Hint</dt><dd><span id="code-hint" class="hint"></span></dd></div>
      </dl>
      <p id="code-fine-print" class="fine-print">Keep this page open until the installer has accepted the code: it is shown
      only once. The hint names the code without revealing it.</p>
    </div>

    <div id="watch" class="watch" role="group" aria-labelledby="watch-heading" hidden>
      <h3 id="watch-heading" class="watch-heading">What happened to <span id="watch-hint" class="hint"></span></h3>
      <p id="watch-state" class="watch-state" tabindex="-1" role="status" aria-live="polite" aria-atomic="true"></p>${approvalSection}
      <dl id="watch-machine" class="machine" hidden>
        <div id="machine-host-row"><dt>Host</dt><dd id="machine-host"></dd></div>
        <div id="machine-ip-row"><dt>Public IP</dt><dd id="machine-ip"></dd></div>
        <div id="machine-seen-row"><dt>Checked from</dt><dd id="machine-seen"></dd></div>
        <div><dt>Machine id</dt><dd id="machine-id"></dd></div>
        <div><dt>SSH key</dt><dd id="machine-key" class="fingerprint"></dd></div>
        <div><dt>When</dt><dd id="machine-when"></dd></div>
      </dl>
      <p id="watch-note" class="fine-print" hidden></p>
      <div id="cancel-area" class="cancel" hidden>
        <button type="button" id="cancel-button" class="button quiet" aria-expanded="false" aria-controls="cancel-confirm">Not you? Cancel this code</button>
        <div id="cancel-confirm" class="confirm" role="group" aria-labelledby="cancel-question" hidden>
          <p id="cancel-question" class="confirm-question">Cancel this code? No machine will be able to use it, and an
          install that has not finished is stopped. This cannot be undone.</p>
          <div class="confirm-actions">
            <button type="button" id="cancel-yes" class="button danger">Yes, cancel this code</button>
            <button type="button" id="cancel-no" class="button secondary">Keep it</button>
          </div>
        </div>
      </div>
    </div>
  </section>

  <section id="next" class="next" aria-labelledby="next-heading" hidden>
    <h2 id="next-heading">What to do next</h2>
    <ol>
      <li>On your server, run the SlowDNS installer.</li>
      <li>When it asks for an install code, enter this one (or paste it).</li>
      <li id="next-approve" hidden>When this page shows your server's machine (compare its address and SSH key), approve it.
      The installer waits until you do.</li>
      <li>Check the hostname and public IP it shows, and let it finish. This page follows the install and
      shows which machine uses your code.</li>
    </ol>
  </section>`,
  });
}
