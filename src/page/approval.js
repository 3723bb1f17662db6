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

  const { element, post, timeElement, t, errorKey } = /** @type {{ slowdnsPage: SlowdnsPageKit }} */ (
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

  /** The catalog's words for a decided machine's line. */
  const DECIDED = {
    approved: 'approval.approved',
    denied: 'approval.denied',
    not_chosen: 'approval.notChosen',
    closed: 'approval.closed',
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
    const address = part(entry, 'address');
    address.textContent = precheck.precheck_ip || t('approval.unknownAddress');
    // "not known" is a word of the page's language, not an address to read left to right.
    if (!precheck.precheck_ip) address.dir = 'auto';
    // Every machine has its own Approve and Deny: the group says whose they are.
    part(entry, 'actions').setAttribute(
      'aria-label',
      precheck.precheck_ip
        ? t('approval.decisionFor', { address: precheck.precheck_ip, key: precheck.ssh_fingerprint })
        : t('approval.decisionForUnknown', { key: precheck.ssh_fingerprint }),
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
    state.textContent = t(decided ? DECIDED[/** @type {keyof typeof DECIDED} */ (decided)] : 'approval.pending');
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
    part(section, 'count').textContent = waiting === 0 ? '' : t('approval.waiting', { count: waiting });
  }

  /** @param {HTMLElement} entry @param {'approve' | 'deny'} decision */
  async function decide(entry, decision) {
    if (deciding || !current) return;
    deciding = true;
    const button = part(entry, decision === 'approve' ? 'approve' : 'deny-yes');
    button.setAttribute('aria-disabled', 'true');
    button.setAttribute('aria-busy', 'true');
    say(entry, t(decision === 'approve' ? 'approval.approving' : 'approval.denying'));
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
      const code = typeof body?.error?.code === 'string' ? body.error.code : 'service_unavailable';
      say(entry, t('approval.notChanged', { why: t(errorKey(code)) }), 'error');
      // Whatever happened, the next look at the code shows it.
      document.dispatchEvent(new CustomEvent('slowdns:code-refresh'));
    } catch {
      say(entry, t('approval.offline'), 'error');
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
    cancelButton.textContent = t(andReplace ? 'cancel.andReplace' : 'page.cancel');
    cancelQuestion.textContent = t(andReplace ? 'cancel.andReplaceQuestion' : 'page.cancelQuestion');
    cancelYes.textContent = t(andReplace ? 'cancel.andReplaceYes' : 'page.cancelYes');
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
    showNote(t('cancel.cancelling'));
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
        showNote(t('cancel.alreadyInstalled'), 'error');
      } else {
        cancelAnswered({});
        const code = typeof body?.error?.code === 'string' ? body.error.code : 'service_unavailable';
        showNote(t('cancel.failed', { why: t(errorKey(code)) }), 'error');
      }
    } catch {
      cancelling = false;
      cancelAnswered({});
      showNote(t('cancel.offline'), 'error');
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
