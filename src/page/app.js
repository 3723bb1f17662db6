// @ts-check
// The /slowdns page script, served as /slowdns/app.js. Plain browser JavaScript, no build step and no
// dependencies: the page's Content-Security-Policy allows only this file, so no inline handlers.
'use strict';

(() => {
  const ISSUE_URL = '/api/v2/slowdns/code/issue';
  const COPIED_LABEL_MS = 2_500;

  const { element, post } = /** @type {{ slowdnsPage: SlowdnsPageKit }} */ (/** @type {unknown} */ (window))
    .slowdnsPage;
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
   * @param {string} message
   * @param {'info' | 'success' | 'error'} tone
   * @param {{ href: string, text: string }} [link]
   */
  function say(message, tone, link) {
    statusLine.dataset.tone = tone;
    statusLine.textContent = message;
    if (link) {
      const anchor = document.createElement('a');
      anchor.href = link.href;
      anchor.textContent = link.text;
      statusLine.append(' ', anchor);
    }
  }

  /** @param {number} count @param {string} unit */
  const plural = (count, unit) => `${count} ${unit}${count === 1 ? '' : 's'}`;

  /** "about 12 minutes": how long a person has to wait, in words. @param {number} seconds */
  function waitInWords(seconds) {
    if (!(seconds > 0)) return 'a little while';
    if (seconds < 60) return 'less than a minute';
    const minutes = Math.ceil(seconds / 60);
    if (minutes < 60) return `about ${plural(minutes, 'minute')}`;
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    return `about ${plural(hours, 'hour')}${rest ? ` and ${plural(rest, 'minute')}` : ''}`;
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
    const mmss = `${String(m).padStart(h ? 2 : 1, '0')}:${String(s).padStart(2, '0')}`;
    return h ? `${h}:${mmss}` : mmss;
  }

  /** A code that can still be entered, or whose install is running: replacing it on screen asks first. */
  const inPlay = () => Boolean(current && (current.usable || current.status === 'activated'));

  /** Once a code is on screen, copying it is the main action: getting another steps back to a secondary button. */
  function setIssueLabel() {
    issueButton.className = current ? 'button secondary' : 'button primary wide';
    if (!current) issueButton.textContent = 'Get an install code';
    else issueButton.textContent = inPlay() ? 'Get another code' : 'Get a new install code';
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
      askFirstScope.textContent = shown.asks
        ? 'The code on screen asks you first: it waits for your approval of the machine.'
        : 'The code on screen does not ask you first: it was issued without approval, and this cannot be changed. To be asked, get another code with the box ticked.';
    } else {
      askFirst.disabled = askFirstFixed;
      askFirstScope.textContent = current && inPlay() ? 'Your choice applies to the new code.' : '';
    }
    askFirstScope.hidden = askFirstScope.textContent === '';
  }

  /** What the code's label and countdown say once it can no longer be entered. */
  const UNUSABLE = {
    activated: { label: 'Your install code is in use', countdown: 'in use' },
    confirmed: { label: 'This install code has been used', countdown: 'used' },
    expired: { label: 'This install code has expired', countdown: 'expired' },
    revoked: { label: 'This install code was cancelled', countdown: 'cancelled' },
    released: { label: 'This install code can no longer be used', countdown: 'no longer valid' },
  };

  /** Shows the code as usable, in use, or done with (struck through, nothing to copy). */
  function applyCodeState() {
    if (!current) return;
    const shown = current.usable
      ? undefined
      : UNUSABLE[/** @type {keyof typeof UNUSABLE} */ (current.status)] || UNUSABLE.expired;
    result.dataset.state = current.usable ? 'usable' : current.status;
    codeLabel.textContent = shown ? shown.label : 'Your install code';
    copyButton.disabled = !current.usable;
    // Keeping the page open and entering the code are news only while the code can be entered.
    finePrint.hidden = !current.usable;
    nextSteps.hidden = !current.usable;
    countdownLabel.textContent = shown ? 'Code' : 'Expires in';
    if (shown) countdown.textContent = shown.countdown;
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
    say('Your install code has expired. Get a new one with the button above.', 'info');
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
    copyButton.textContent = 'Copy code';
    result.hidden = false;
    applyCodeState();
    clearInterval(ticker);
    ticker = setInterval(tick, 1000);
    // A second Enter now copies the code instead of throwing it away for another.
    copyButton.focus();
    say(
      `Your install code is ready. It expires in ${waitInWords(data.ttl_seconds).replace(/^about /, '')}.`,
      'success',
    );
    // watch.js follows the code by its id.
    document.dispatchEvent(
      new CustomEvent('slowdns:code-issued', { detail: { hint: data.install_code_hint, id: data.install_code_id } }),
    );
  }

  /** After a failed request, a code already on screen is still good: say so. */
  function stillValidNote() {
    return current?.usable ? ' The code you already have still works until it expires.' : '';
  }

  /** @param {Response} response @param {any} body */
  function explainFailure(response, body) {
    const code = body?.error && typeof body.error.code === 'string' ? body.error.code : undefined;
    const reload = { href: '/slowdns', text: 'Reload the page' };
    const stillValid = stillValidNote();
    if (code === 'browser_session_required') {
      say(
        'Your browser session is missing or has expired. Reload the page, then ask for a code again.',
        'error',
        reload,
      );
    } else if (code === 'cross_site_request') {
      say(
        'The request was refused because it did not come from this page. Open the SlowDNS page directly and try again.',
        'error',
        reload,
      );
    } else if (code === 'rate_limit_exceeded' || response.status === 429) {
      const wait = waitInWords(retryAfterSeconds(response.headers.get('Retry-After')));
      say(`You have reached the limit of install codes for now. Try again in ${wait}.${stillValid}`, 'error');
    } else if (response.status >= 500 || !code) {
      say(`The SlowDNS service is not reachable right now. Try again in a minute.${stillValid}`, 'error');
    } else {
      say(`${body.error.message || 'The request failed.'}${stillValid}`, 'error');
    }
  }

  /** @param {boolean | undefined} asks the approval choice for the new code (read before the box shows the old one again) */
  async function requestCode(asks = askFirst?.checked) {
    if (busy) return;
    busy = true;
    // aria-disabled rather than disabled: a disabled button drops keyboard focus.
    issueButton.setAttribute('aria-disabled', 'true');
    issueButton.setAttribute('aria-busy', 'true');
    say('Requesting an install code…', 'info');
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
      say(`The SlowDNS service could not be reached. Check your connection and try again.${stillValidNote()}`, 'error');
    } finally {
      busy = false;
      issueButton.removeAttribute('aria-disabled');
      issueButton.removeAttribute('aria-busy');
    }
  }

  function showCopied() {
    copyButton.textContent = 'Copied';
    copyButton.dataset.state = 'copied';
    say('Install code copied to the clipboard.', 'success');
    clearTimeout(copiedReset);
    copiedReset = setTimeout(() => {
      copyButton.textContent = 'Copy code';
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
    else
      say('This browser did not allow copying. The code is selected: press Ctrl+C (⌘C on a Mac) to copy it.', 'info');
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
    if (wasUsable && !usable) say('', 'info');
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
