// @ts-check
// The /slowdns page script, served as /slowdns/app.js. Plain browser JavaScript, no build step and no
// dependencies: the page's Content-Security-Policy allows only this file, so no inline handlers.
'use strict';

(() => {
  const ISSUE_URL = '/api/v2/slowdns/code/issue';
  const COPIED_LABEL_MS = 2_500;

  const { element, post, t, words, duration, errorKey, digits } = /** @type {{ slowdnsPage: SlowdnsPageKit }} */ (
    /** @type {unknown} */ (window)
  ).slowdnsPage;
  const issueButton = element('issue-button');
  const replaceConfirm = element('replace-confirm');
  const replaceYes = element('replace-yes');
  const replaceNo = element('replace-no');
  const copyButton = /** @type {HTMLButtonElement} */ (element('copy-button'));
  const statusLine = element('status');
  const result = element('result');
  const codeLabel = element('code-label');
  const codeText = element('install-code');
  const hintText = element('code-hint');
  const countdown = element('countdown');
  const countdownLabel = element('countdown-label');
  const finePrint = element('code-fine-print');
  const nextSteps = element('next');
  const approveStep = element('next-approve');
  /** "Ask me before a machine can use this code": absent when the service never asks (APPROVAL_POLICY=off). */
  const askFirst = /** @type {HTMLInputElement | null} */ (document.getElementById('require-approval'));
  /** Which code the box speaks for: the code on screen while it is in play, else the next one. */
  const askFirstScope = document.getElementById('require-approval-scope');
  /** APPROVAL_POLICY=required: the box stays ticked and fixed whatever is on screen. */
  const askFirstFixed = Boolean(askFirst?.disabled);

  /**
   * The code this page issued last. `usable` and `status` follow what watch.js learns from the service.
   * @type {{ code: string, hint: string, deadline: number, usable: boolean, status: string, asks: boolean } | undefined}
   */
  let current;
  let busy = false;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let ticker;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let copiedReset;

  /**
   * A stable, low-entropy description of this browser that the server mixes into its fingerprint for
   * the per-browser limit: the same on every visit, no canvas or audio probing. Screen sides are
   * sorted so that turning a phone does not change it.
   */
  function browserSignal() {
    const sides = [screen.width, screen.height].sort((a, b) => b - a);
    const languages = navigator.languages?.length ? navigator.languages : [navigator.language];
    return [
      `screen=${sides.join('x')}x${screen.colorDepth}`,
      `tz=${Intl.DateTimeFormat().resolvedOptions().timeZone || ''}`,
      `platform=${navigator.platform || ''}`,
      `languages=${languages.join(',')}`,
      `cores=${navigator.hardwareConcurrency || 0}`,
      `touch=${navigator.maxTouchPoints || 0}`,
    ]
      .join(';')
      .slice(0, 512);
  }

  /**
   * @param {(string | Node)[]} message the words (page-kit's `words`), none to clear the line
   * @param {'info' | 'success' | 'error'} tone
   * @param {{ href: string, text: string }} [link]
   */
  function say(message, tone, link) {
    statusLine.dataset.tone = tone;
    statusLine.replaceChildren(...message);
    if (link) {
      const anchor = document.createElement('a');
      anchor.href = link.href;
      anchor.textContent = link.text;
      statusLine.append(' ', anchor);
    }
  }

  /** "about 12 minutes": how long a person has to wait, in words. @param {number} seconds */
  function waitInWords(seconds) {
    if (!(seconds > 0)) return t('wait.aLittleWhile');
    if (seconds < 60) return t('wait.lessThanAMinute');
    return t('wait.about', { duration: duration(seconds) });
  }

  /** Retry-After is seconds, or (from some proxies) an HTTP date. @param {string | null} header */
  function retryAfterSeconds(header) {
    if (!header) return NaN;
    if (/^\s*\d+\s*$/.test(header)) return Number(header);
    return (Date.parse(header) - Date.now()) / 1000;
  }

  /** @param {number} seconds */
  function clockFace(seconds) {
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    const s = seconds % 60;
    // In the language's digits: "14:57", "۱۴:۵۷".
    const mmss = `${digits(m, h ? 2 : 1)}:${digits(s, 2)}`;
    return h ? `${digits(h, 1)}:${mmss}` : mmss;
  }

  /** A code that can still be entered, or whose install is running: replacing it on screen asks first. */
  const inPlay = () => Boolean(current && (current.usable || current.status === 'activated'));

  /** Once a code is on screen, copying it is the main action: getting another steps back to a secondary button. */
  function setIssueLabel() {
    issueButton.className = current ? 'button secondary' : 'button primary wide';
    if (!current) issueButton.textContent = t('code.issue');
    else issueButton.textContent = t(inPlay() ? 'code.issueAnother' : 'code.issueNew');
    if (!inPlay()) setReplaceOpen(false);
    else applyAskFirst();
  }

  /** @param {boolean} open */
  function setReplaceOpen(open) {
    replaceConfirm.hidden = !open;
    issueButton.setAttribute('aria-expanded', String(open));
    applyAskFirst();
  }

  /**
   * The approval choice is made when a code is issued and cannot change afterwards: while a code is in play,
   * the box shows that code's choice, fixed, and says so; asking for another code frees it for the new one.
   */
  function applyAskFirst() {
    if (!askFirst || !askFirstScope) return;
    const choosingNext = !replaceConfirm.hidden;
    const shown = current && inPlay() && !choosingNext ? current : undefined;
    if (shown) {
      askFirst.checked = shown.asks;
      askFirst.disabled = true;
      askFirstScope.textContent = t(shown.asks ? 'code.askFirstOn' : 'code.askFirstOff');
    } else {
      askFirst.disabled = askFirstFixed;
      askFirstScope.textContent = current && inPlay() ? t('code.askFirstNext') : '';
    }
    askFirstScope.hidden = askFirstScope.textContent === '';
  }

  /** The catalog's words for the code's label and countdown once it can no longer be entered. */
  const UNUSABLE = {
    activated: { label: 'code.inUseLabel', countdown: 'code.inUse' },
    confirmed: { label: 'code.usedLabel', countdown: 'code.used' },
    expired: { label: 'code.expiredLabel', countdown: 'code.expired' },
    revoked: { label: 'code.cancelledLabel', countdown: 'code.cancelled' },
    released: { label: 'code.releasedLabel', countdown: 'code.released' },
  };

  /** Shows the code as usable, in use, or done with (struck through, nothing to copy). */
  function applyCodeState() {
    if (!current) return;
    const shown = current.usable
      ? undefined
      : UNUSABLE[/** @type {keyof typeof UNUSABLE} */ (current.status)] || UNUSABLE.expired;
    result.dataset.state = current.usable ? 'usable' : current.status;
    codeLabel.textContent = t(shown ? shown.label : 'page.codeLabel');
    copyButton.disabled = !current.usable;
    // Keeping the page open and entering the code are news only while the code can be entered.
    finePrint.hidden = !current.usable;
    nextSteps.hidden = !current.usable;
    countdownLabel.textContent = t(shown ? 'code.code' : 'page.expiresIn');
    if (shown) countdown.textContent = t(shown.countdown);
    else tick();
    setIssueLabel();
  }

  function tick() {
    if (!current?.usable) return;
    // The deadline is this browser's receipt time plus ttl_seconds: a client clock that disagrees with
    // the server's cannot shorten or stretch the countdown.
    const left = Math.max(0, Math.ceil((current.deadline - Date.now()) / 1000));
    countdown.textContent = clockFace(left);
    if (left === 0) expire();
  }

  function expire() {
    if (!current) return;
    current.usable = false;
    current.status = 'expired';
    applyCodeState();
    say(words('code.expiredSay'), 'info');
    // watch.js stops following a code this page knows to be expired.
    document.dispatchEvent(new CustomEvent('slowdns:code-expired', { detail: { hint: current.hint } }));
  }

  /** @param {{ install_code: string, install_code_hint: string, install_code_id?: string, ttl_seconds: number, require_approval?: boolean }} data @param {number} receivedAt */
  function showCode(data, receivedAt) {
    approveStep.hidden = !data.require_approval;
    current = {
      code: data.install_code,
      hint: data.install_code_hint,
      deadline: receivedAt + data.ttl_seconds * 1000,
      usable: true,
      status: 'issued',
      asks: Boolean(data.require_approval),
    };
    codeText.textContent = data.install_code;
    hintText.textContent = data.install_code_hint;
    copyButton.textContent = t('page.copy');
    result.hidden = false;
    applyCodeState();
    clearInterval(ticker);
    ticker = setInterval(tick, 1000);
    // A second Enter now copies the code instead of throwing it away for another.
    copyButton.focus();
    say(words('code.ready', { duration: duration(data.ttl_seconds) }), 'success');
    // watch.js follows the code by its id.
    document.dispatchEvent(
      new CustomEvent('slowdns:code-issued', { detail: { hint: data.install_code_hint, id: data.install_code_id } }),
    );
  }

  /** A failure's words, and, when a code on screen is still good, that it is. @param {string} key @param {Record<string, string>} [values] */
  function failed(key, values) {
    return current?.usable ? [...words(key, values), ' ', ...words('code.stillValid')] : words(key, values);
  }

  /** The service's error code in the page's words (errorWords), never its English message. @param {Response} response @param {any} body */
  function explainFailure(response, body) {
    const code = body?.error && typeof body.error.code === 'string' ? body.error.code : undefined;
    const reload = { href: '/slowdns', text: t('code.reload') };
    if (code === 'browser_session_required' || code === 'cross_site_request') {
      say(words(`error.${code}`), 'error', reload);
    } else if (code === 'rate_limit_exceeded' || response.status === 429) {
      const wait = waitInWords(retryAfterSeconds(response.headers.get('Retry-After')));
      say(failed('code.limit', { wait }), 'error');
    } else if (response.status >= 500 || !code) {
      say(failed('error.service_unavailable'), 'error');
    } else {
      say(failed(errorKey(code)), 'error');
    }
  }

  /** @param {boolean | undefined} asks the approval choice for the new code (read before the box shows the old one again) */
  async function requestCode(asks = askFirst?.checked) {
    if (busy) return;
    busy = true;
    // aria-disabled rather than disabled: a disabled button drops keyboard focus.
    issueButton.setAttribute('aria-disabled', 'true');
    issueButton.setAttribute('aria-busy', 'true');
    say(words('code.requesting'), 'info');
    try {
      const { response, body } = await post(
        ISSUE_URL,
        askFirst
          ? { browser_signal: browserSignal(), require_approval: Boolean(asks) }
          : { browser_signal: browserSignal() },
      );
      const receivedAt = Date.now();
      if (response.status === 201 && body && body.data && typeof body.data.install_code === 'string') {
        showCode(body.data, receivedAt);
      } else {
        explainFailure(response, body);
      }
    } catch {
      say(failed('code.offline'), 'error');
    } finally {
      busy = false;
      issueButton.removeAttribute('aria-disabled');
      issueButton.removeAttribute('aria-busy');
    }
  }

  function showCopied() {
    copyButton.textContent = t('code.copied');
    copyButton.dataset.state = 'copied';
    say(words('code.copiedSay'), 'success');
    clearTimeout(copiedReset);
    copiedReset = setTimeout(() => {
      copyButton.textContent = t('page.copy');
      delete copyButton.dataset.state;
    }, COPIED_LABEL_MS);
  }

  /** Selects the code's text, so that the person can copy it by hand. */
  function selectCode() {
    const range = document.createRange();
    range.selectNodeContents(codeText);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
  }

  async function copyCode() {
    if (!current || copyButton.disabled) return;
    try {
      // Only in a secure context (https or localhost); elsewhere fall back to the old way below.
      await navigator.clipboard.writeText(current.code);
      showCopied();
      return;
    } catch {
      selectCode();
    }
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
    if (copied) showCopied();
    else say(words('code.copyByHand'), 'info');
  }

  // What watch.js learned about a code from the service.
  document.addEventListener('slowdns:code-state', (event) => {
    const { hint, status, usable } = /** @type {CustomEvent<{ hint: string, status: string, usable: boolean }>} */ (
      event
    ).detail;
    if (!current || current.hint !== hint || (current.status === status && current.usable === usable)) return;
    // A code this page saw expire stays expired, whatever a slower server clock still says.
    if (current.status === 'expired' && usable) return;
    const wasUsable = current.usable;
    current.status = status;
    current.usable = usable;
    applyCodeState();
    // "Your code is ready" no longer holds once a machine took it.
    if (wasUsable && !usable) say([], 'info');
  });
  issueButton.addEventListener('click', () => {
    if (!inPlay()) return void requestCode();
    setReplaceOpen(true);
    // The safe answer has the focus: Enter again keeps the code.
    replaceNo.focus();
  });
  replaceYes.addEventListener('click', () => {
    const asks = askFirst?.checked;
    setReplaceOpen(false);
    issueButton.focus();
    void requestCode(asks);
  });
  const keepCode = () => {
    setReplaceOpen(false);
    issueButton.focus();
  };
  replaceNo.addEventListener('click', keepCode);
  replaceConfirm.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') keepCode();
  });
  // approval.js cancelled a code this page no longer shows (after a reload) and the person asked for a new one.
  document.addEventListener('slowdns:code-wanted', () => void requestCode());
  copyButton.addEventListener('click', () => void copyCode());
  // Background tabs run timers rarely; bring the countdown up to date as soon as the page is seen again.
  document.addEventListener('visibilitychange', tick);
})();
