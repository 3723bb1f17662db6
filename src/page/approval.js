// @ts-check
// The /slowdns page's third script, served as /slowdns/approval.js: what the person decides about their
// code. For a code issued with "Ask me before a machine can use this code" (DESIGN §14), it shows each
// machine that prechecked it and lets the person approve or deny it; for any code still in play, it lets
// them cancel it ("Not you? Cancel this code"). watch.js tells it what the service says of the code
// (`slowdns:code-state`, with the item); it answers a decision with `slowdns:code-decided`, carrying the
// code as the service now has it, and tells watch.js of a cancel with `slowdns:cancel-sent` and
// `slowdns:cancel-answered`.
'use strict';

(() => {
  const DECIDE_URL = { approve: '/api/v2/slowdns/code/approve', deny: '/api/v2/slowdns/code/deny' };
  const CANCEL_URL = '/api/v2/slowdns/code/cancel';

  const { element, post, timeElement } = /** @type {{ slowdnsPage: SlowdnsPageKit }} */ (
    /** @type {unknown} */ (window)
  ).slowdnsPage;
  const section = element('approvals');
  const list = element('approval-list');
  const template = /** @type {HTMLTemplateElement} */ (element('approval-template'));
  const watchState = element('watch-state');
  const note = element('watch-note');
  const cancelArea = element('cancel-area');
  const cancelButton = element('cancel-button');
  const cancelConfirm = element('cancel-confirm');
  const cancelQuestion = element('cancel-question');
  const cancelYes = element('cancel-yes');
  const cancelNo = element('cancel-no');

  /**
   * @typedef {{ precheck_id: string, precheck_ip: string | null, machine_id_short: string, ssh_fingerprint: string,
   *   installer_version: string, prechecked_at: string, approval: 'pending' | 'approved' | 'denied' | 'not_chosen' }} Precheck
   * @typedef {{ install_code_id: string, install_code_hint: string, status: string, usable: boolean,
   *   machine: { hostname: string | null } | null, require_approval?: boolean, approval?: string, prechecks?: Precheck[] }} Item
   */

  /** The code the list is about; a new code starts a new list. */
  let codeId = '';
  /** The item last shown: a decision names its code by it. @type {Item | undefined} */
  let current;
  let deciding = false;
  /** The code as watch.js last showed it: the one a cancel is about. @type {Item | undefined} */
  let shown;
  let cancelling = false;
  /** Whether the cancel controls, as last shown, also ask for a new code. */
  let cancelAndReplace = false;

  /** What a decided machine's line says. */
  const DECIDED = {
    approved: 'Approved: this machine, and no other, can now use the code to install.',
    denied: 'Denied: the code is cancelled, and no machine can use it.',
    not_chosen: 'Not approved: you decided on another machine, so this one cannot use the code.',
    closed: 'No decision was made, and none can be now: the code can no longer be used.',
  };

  /** @param {Element} root @param {string} name */
  const part = (root, name) => {
    const found = root.querySelector(`[data-part="${name}"]`);
    if (!(found instanceof HTMLElement)) throw new Error(`the approval template has no ${name}`);
    return found;
  };

  /** @param {HTMLElement} entry @param {boolean} open */
  function setDenyOpen(entry, open) {
    part(entry, 'deny-confirm').hidden = !open;
    part(entry, 'deny').setAttribute('aria-expanded', String(open));
  }

  /** @param {HTMLElement} entry @param {string} text @param {'info' | 'error'} [tone] */
  function say(entry, text, tone = 'info') {
    const note = part(entry, 'note');
    note.textContent = text;
    note.dataset.tone = tone;
    note.hidden = !text;
  }

  /** A new line for a machine, with its own ids (labels and controls point at them). @param {Precheck} precheck */
  function newEntry(precheck) {
    const entry = /** @type {HTMLElement} */ (
      /** @type {DocumentFragment} */ (template.content.cloneNode(true)).firstElementChild
    );
    const id = precheck.precheck_id;
    entry.dataset.precheckId = id;
    for (const element of entry.querySelectorAll('[data-id]')) element.id = `${element.getAttribute('data-id')}-${id}`;
    for (const attribute of ['aria-labelledby', 'aria-controls', 'aria-describedby']) {
      for (const element of entry.querySelectorAll(`[${attribute}]`)) {
        element.setAttribute(
          attribute,
          (element.getAttribute(attribute) || '')
            .split(' ')
            .map((name) => `${name}-${id}`)
            .join(' '),
        );
      }
    }
    part(entry, 'address').textContent = precheck.precheck_ip || 'not known';
    // Every machine has its own Approve and Deny: the group says whose they are.
    part(entry, 'actions').setAttribute(
      'aria-label',
      `Your decision on the machine at ${precheck.precheck_ip || 'an unknown address'}, SSH key ${precheck.ssh_fingerprint}`,
    );
    part(entry, 'machine-id').textContent = precheck.machine_id_short;
    part(entry, 'key').textContent = precheck.ssh_fingerprint;
    part(entry, 'version').textContent = precheck.installer_version;
    part(entry, 'when').replaceChildren(timeElement(precheck.prechecked_at));

    part(entry, 'approve').addEventListener('click', () => void decide(entry, 'approve'));
    part(entry, 'deny').addEventListener('click', () => {
      setDenyOpen(entry, true);
      // The safe answer has the focus: a second Enter keeps the machine waiting.
      part(entry, 'deny-no').focus();
    });
    const keepWaiting = () => {
      setDenyOpen(entry, false);
      part(entry, 'deny').focus();
    };
    part(entry, 'deny-no').addEventListener('click', keepWaiting);
    part(entry, 'deny-confirm').addEventListener('keydown', (event) => {
      if (event.key === 'Escape') keepWaiting();
    });
    part(entry, 'deny-yes').addEventListener('click', () => void decide(entry, 'deny'));
    return entry;
  }

  /** Brings a machine's line up to date: its decision, and the buttons only while one can be made. @param {HTMLElement} entry @param {Precheck} precheck @param {Item} item */
  function update(entry, precheck, item) {
    const open = precheck.approval === 'pending' && item.usable;
    const decided = precheck.approval === 'pending' ? (open ? '' : 'closed') : precheck.approval;
    entry.dataset.approval = decided || 'pending';
    const state = part(entry, 'state');
    state.textContent = decided
      ? DECIDED[/** @type {keyof typeof DECIDED} */ (decided)]
      : 'Waiting for your decision. It cannot install until you approve it.';
    const hadFocus = entry.contains(document.activeElement) && document.activeElement !== state;
    part(entry, 'actions').hidden = !open;
    if (!open) {
      setDenyOpen(entry, false);
      say(entry, '');
      // The buttons are gone: keep keyboard focus on what replaced them.
      if (hadFocus) state.focus();
    }
  }

  /** @param {Item} item */
  function render(item) {
    current = item;
    if (item.install_code_id !== codeId) {
      codeId = item.install_code_id;
      list.replaceChildren();
    }
    // Once a machine activated the code, watch.js shows that machine (with its hostname): the list is done.
    const activated = Boolean(item.machine?.hostname);
    const prechecks = item.require_approval && Array.isArray(item.prechecks) && !activated ? item.prechecks : [];
    if (prechecks.length === 0 && section.contains(document.activeElement)) element('watch-state').focus();
    section.hidden = prechecks.length === 0;
    /** @type {Map<string, HTMLElement>} */
    const entries = new Map();
    for (const entry of /** @type {NodeListOf<HTMLElement>} */ (list.querySelectorAll('li[data-precheck-id]')))
      entries.set(entry.dataset.precheckId || '', entry);
    // Newest first, as the service lists them; a line once shown keeps its place (and its focus).
    prechecks.forEach((precheck, index) => {
      const entry = entries.get(precheck.precheck_id) || newEntry(precheck);
      entries.delete(precheck.precheck_id);
      if (list.children[index] !== entry) list.insertBefore(entry, list.children[index] || null);
      update(entry, precheck, item);
    });
    for (const gone of entries.values()) gone.remove();
    const waiting = prechecks.filter((p) => p.approval === 'pending' && item.usable).length;
    part(section, 'count').textContent =
      waiting === 0
        ? ''
        : waiting === 1
          ? 'One machine is waiting for your decision.'
          : `${waiting} machines are waiting for your decision. Approve only the one you are installing.`;
  }

  /** @param {HTMLElement} entry @param {'approve' | 'deny'} decision */
  async function decide(entry, decision) {
    if (deciding || !current) return;
    deciding = true;
    const button = part(entry, decision === 'approve' ? 'approve' : 'deny-yes');
    button.setAttribute('aria-disabled', 'true');
    button.setAttribute('aria-busy', 'true');
    say(entry, decision === 'approve' ? 'Approving…' : 'Denying…');
    try {
      const { response, body } = await post(DECIDE_URL[decision], {
        install_code_id: current.install_code_id,
        precheck_id: entry.dataset.precheckId,
      });
      if (response.ok && body?.data) {
        // watch.js shows the code as it now is, and hands it back here with `slowdns:code-state`.
        document.dispatchEvent(new CustomEvent('slowdns:code-decided', { detail: body.data }));
        return;
      }
      const code = body?.error?.code;
      const why =
        code === 'approval_decided'
          ? 'A decision on this code was already made (in another tab?). This page shows it in a moment.'
          : `${body?.error?.message || `The service answered ${response.status}.`}`;
      say(entry, `Nothing was changed: ${why}`, 'error');
      // Whatever happened, the next look at the code shows it.
      document.dispatchEvent(new CustomEvent('slowdns:code-refresh'));
    } catch {
      say(
        entry,
        'The service could not be reached, so nothing was decided. Check your connection and try again.',
        'error',
      );
    } finally {
      deciding = false;
      button.removeAttribute('aria-disabled');
      button.removeAttribute('aria-busy');
    }
  }

  /** watch.js's note, which a cancel borrows until its answer. @param {string} text @param {'info' | 'error'} [tone] */
  function showNote(text, tone = 'info') {
    note.textContent = text;
    note.dataset.tone = tone;
    note.hidden = !text;
  }

  /** @param {boolean} open */
  function setConfirmOpen(open) {
    cancelConfirm.hidden = !open;
    cancelButton.setAttribute('aria-expanded', String(open));
  }

  /**
   * The cancel controls: "Not you? Cancel this code", or, for a code this page can no longer show, the way
   * forward: cancel it and get a new one.
   * @param {boolean} andReplace
   */
  function setCancelWords(andReplace) {
    if (andReplace === cancelAndReplace) return;
    cancelAndReplace = andReplace;
    cancelButton.textContent = andReplace ? 'Cancel it and get a new code' : 'Not you? Cancel this code';
    cancelQuestion.textContent = andReplace
      ? 'Cancel this code and get a new one? No machine will be able to use the old code, and an install that has not finished is stopped. This cannot be undone.'
      : 'Cancel this code? No machine will be able to use it, and an install that has not finished is stopped. This cannot be undone.';
    cancelYes.textContent = andReplace ? 'Yes, cancel it and get a new one' : 'Yes, cancel this code';
  }

  /** watch.js shows the cancel's answer (and takes its note back). @param {{ item?: Item, confirmed?: boolean }} detail */
  const cancelAnswered = (detail) => document.dispatchEvent(new CustomEvent('slowdns:cancel-answered', { detail }));

  async function cancel() {
    if (cancelling || !shown) return;
    cancelling = true;
    const andReplace = cancelAndReplace;
    cancelYes.setAttribute('aria-disabled', 'true');
    cancelYes.setAttribute('aria-busy', 'true');
    document.dispatchEvent(new CustomEvent('slowdns:cancel-sent'));
    showNote('Cancelling the code…');
    try {
      const { response, body } = await post(CANCEL_URL, { install_code_id: shown.install_code_id });
      cancelling = false;
      if (response.ok && body?.data) {
        cancelAnswered({ item: body.data });
        // The cancel controls are gone: keep keyboard focus on what replaced them.
        watchState.focus();
        // app.js gets the new code (and moves the focus to its copy button).
        if (andReplace) document.dispatchEvent(new CustomEvent('slowdns:code-wanted'));
      } else if (body?.error && body.error.code === 'activation_confirmed') {
        // watch.js follows the code again, to show the finished install.
        cancelAnswered({ confirmed: true });
        setConfirmOpen(false);
        showNote(
          'This code was already used for a finished install, which cannot be undone from this page. If this is not your server, contact the operator of this service.',
          'error',
        );
      } else {
        cancelAnswered({});
        showNote(
          `The code could not be cancelled: ${body?.error?.message || `the service answered ${response.status}`}. Try again.`,
          'error',
        );
      }
    } catch {
      cancelling = false;
      cancelAnswered({});
      showNote(
        'The service could not be reached, so the code was not cancelled. Check your connection and try again.',
        'error',
      );
    } finally {
      cancelling = false;
      cancelYes.removeAttribute('aria-disabled');
      cancelYes.removeAttribute('aria-busy');
    }
  }

  document.addEventListener('slowdns:code-state', (event) => {
    const { usable, item, cancellable, resumed } =
      /** @type {CustomEvent<{ usable: boolean, item?: Item, cancellable: boolean, resumed: boolean }>} */ (event)
        .detail;
    if (item) render(item);
    shown = item;
    setCancelWords(resumed && usable);
    cancelArea.hidden = !cancellable;
    if (!cancellable) setConfirmOpen(false);
  });
  document.addEventListener('slowdns:code-issued', () => {
    codeId = '';
    current = undefined;
    list.replaceChildren();
    section.hidden = true;
    shown = undefined;
    cancelArea.hidden = true;
    setConfirmOpen(false);
    setCancelWords(false);
  });
  cancelButton.addEventListener('click', () => {
    setConfirmOpen(true);
    // The safe answer has the focus: a second Enter keeps the code.
    cancelNo.focus();
  });
  const keepCode = () => {
    setConfirmOpen(false);
    cancelButton.focus();
  };
  cancelNo.addEventListener('click', keepCode);
  cancelConfirm.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') keepCode();
  });
  cancelYes.addEventListener('click', () => void cancel());
})();
