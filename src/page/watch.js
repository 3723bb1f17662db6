// @ts-check
// The /slowdns page's second script, served as /slowdns/watch.js: follows what becomes of the install
// code (which machine checked it, activated it, installed with it) and says it in plain words.
// app.js tells it about a new code with `slowdns:code-issued`; it answers with `slowdns:code-state`.
// approval.js, where the person cancels the code, tells it when a cancel is sent and what it brought.
'use strict';

(() => {
  const STATUS_URL = '/api/v2/slowdns/code/status';
  // Quick after a change, slower (up to POLL_MAX_MS) while nothing happens, slower still after errors.
  const POLL_FIRST_MS = 1_000;
  const POLL_MAX_MS = 5_000;
  const POLL_ERROR_MAX_MS = 30_000;
  const FAILURES_BEFORE_NOTE = 3;

  const { element, request, timeElement, t, words } = /** @type {{ slowdnsPage: SlowdnsPageKit }} */ (
    /** @type {unknown} */ (window)
  ).slowdnsPage;
  const watch = element('watch');
  const watchHint = element('watch-hint');
  const watchState = element('watch-state');
  const machineList = element('watch-machine');
  const note = element('watch-note');

  /**
   * @typedef {{ hostname: string | null, public_ip: string | null, machine_id_short: string, ssh_fingerprint: string }} Machine
   * @typedef {{ install_code_id: string, install_code_hint: string, status: string, usable: boolean, machine: Machine | null,
   *   precheck_ip: string | null, issued_at: string, prechecked_at: string | null, activated_at: string | null,
   *   confirmed_at: string | null, released_at: string | null, identity_in_use: boolean,
   *   require_approval?: boolean, approval?: string, prechecks?: unknown[] }} Item
   */

  /** The code being followed; `id` is learned from the service when the issue answer did not carry it. @type {{ hint: string, id?: string } | undefined} */
  let followed;
  /** @type {Item | undefined} */
  let shown;
  /** The JSON of the last item shown: a poll that brings the same is no news. */
  let lastSeen = '';
  let polling = false;
  let inFlight = false;
  let failures = 0;
  let delay = POLL_FIRST_MS;
  let locallyExpired = false;
  /** A cancel is under way (approval.js): its note stays until its answer. */
  let cancelling = false;
  /** Following a code this page no longer shows (after a reload): it offers to cancel it and get a new one. */
  let resumed = false;
  /**
   * Status answers can arrive out of order (a poll in flight while the person cancels): each request is
   * numbered, and an answer older than the one on screen is dropped. A change's own answer (cancel) is
   * numbered when it arrives, so that no poll sent before it can undo it.
   */
  let asked = 0;
  let onScreen = 0;
  /** The note the current state brings, to put back after a passing error note. */
  let stateNote = '';
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;

  /** "SHA256:nThbg6kXUpJW…": enough of a key to recognise it in a sentence; the list shows all of it. @param {string} fingerprint */
  const shortKey = (fingerprint) => (fingerprint.length > 19 ? `${fingerprint.slice(0, 19)}…` : fingerprint);

  /** "host vpn1.example.net" (the host name read left to right in every language), or "the machine". @param {Item} item */
  function hostOf(item) {
    if (!item.machine?.hostname) return t('watch.hostUnknown');
    const host = document.createElement('span');
    host.append(...words('watch.hostNamed', { hostname: { ltr: item.machine.hostname } }));
    return host;
  }

  /**
   * What to tell the person, in plain words, and what they can still do. Addresses, host names and keys read
   * left to right in every language (page-kit's `{ ltr }`).
   * @param {Item} item @param {string} status
   * @returns {{ text: (string | Node)[], state: string, final: boolean, cancellable: boolean, note?: string }}
   */
  function describe(item, status) {
    const m = item.machine;
    switch (status) {
      case 'issued':
        return {
          text: words(item.require_approval ? 'watch.waitingAsks' : 'watch.waiting'),
          state: 'waiting',
          final: false,
          cancellable: true,
        };
      case 'prechecked': {
        // Which machine, and what each button does, is in the list of machines asking (approval.js).
        if (item.approval === 'pending') {
          return { text: words('watch.asking'), state: 'asking', final: false, cancellable: true };
        }
        if (item.approval === 'approved') {
          return {
            text: words('watch.approved'),
            state: 'approved',
            final: false,
            cancellable: true,
            note: t('watch.approvedNote'),
          };
        }
        const key = m ? { ltr: shortKey(m.ssh_fingerprint) } : undefined;
        const address = item.precheck_ip ? { ltr: item.precheck_ip } : undefined;
        return {
          text: !key
            ? words('watch.checked')
            : address
              ? words('watch.checkedKeyFrom', { key, address })
              : words('watch.checkedKey', { key }),
          state: 'checked',
          final: false,
          cancellable: true,
          note: t('watch.checkedNote'),
        };
      }
      case 'activated':
        return {
          text: m?.public_ip
            ? words('watch.activatedIp', {
                host: hostOf(item),
                ip: { ltr: m.public_ip },
                key: { ltr: shortKey(m.ssh_fingerprint) },
              })
            : words('watch.activated', { host: hostOf(item) }),
          state: 'activated',
          final: false,
          cancellable: true,
          note: t('watch.activatedNote'),
        };
      case 'confirmed':
        return {
          text: m?.public_ip
            ? words('watch.installedIp', { host: hostOf(item), ip: { ltr: m.public_ip } })
            : words('watch.installed', { host: hostOf(item) }),
          state: 'installed',
          final: true,
          cancellable: false,
          note: t('watch.installedNote'),
        };
      case 'released':
        return {
          text: words(item.usable ? 'watch.releasedUsable' : 'watch.releasedDone', { host: hostOf(item) }),
          state: 'failed',
          final: !item.usable,
          cancellable: item.usable,
        };
      case 'revoked':
        return {
          text: words(item.approval === 'denied' ? 'watch.denied' : 'watch.cancelled'),
          state: 'cancelled',
          final: true,
          cancellable: false,
        };
      default:
        return { text: words('watch.expired'), state: 'expired', final: true, cancellable: false };
    }
  }

  /** @param {string} id @param {string | null | undefined} value */
  function fill(id, value) {
    const dd = element(id);
    dd.textContent = value || '';
    const row = /** @type {HTMLElement} */ (dd.parentElement);
    row.hidden = !value;
  }

  /** One line per step the code went through, each with its date and time zone. @param {Item} item */
  function showWhen(item) {
    const steps = /** @type {[string, string | null][]} */ ([
      ['watch.stepChecked', item.prechecked_at],
      ['watch.stepActivated', item.activated_at],
      ['watch.stepInstalled', item.confirmed_at],
      ['watch.stepRolledBack', item.released_at],
    ]);
    const lines = steps.flatMap(([what, at]) => {
      if (!at) return [];
      const line = document.createElement('span');
      line.className = 'when-step';
      line.append(...words(what, { time: timeElement(at) }));
      return [line];
    });
    const dd = element('machine-when');
    dd.replaceChildren(...lines);
    /** @type {HTMLElement} */ (dd.parentElement).hidden = lines.length === 0;
  }

  /** @param {Item} item @param {string} status */
  function showMachine(item, status) {
    const m = item.machine;
    // The machines that only prechecked a code issued with approval are listed by approval.js; the one that
    // activated it (known by its hostname) is shown here.
    const listedByApproval = Array.isArray(item.prechecks) && item.prechecks.length > 0 && !m?.hostname;
    machineList.hidden = !m || listedByApproval;
    if (!m || listedByApproval) return;
    fill('machine-host', m.hostname);
    fill('machine-ip', m.public_ip);
    fill('machine-seen', status === 'prechecked' ? item.precheck_ip : null);
    fill('machine-id', m.machine_id_short);
    fill('machine-key', m.ssh_fingerprint);
    showWhen(item);
  }

  /** @param {string} text @param {'info' | 'error'} [tone] */
  function showNote(text, tone = 'info') {
    note.textContent = text;
    note.dataset.tone = tone;
    note.hidden = !text;
  }

  /** Why a code without its text is on screen after a reload, and what the person can do. @param {Item} item */
  function prefaceFor(item) {
    if (!resumed) return '';
    return t(item.usable && !locallyExpired ? 'watch.shownOnceCancel' : 'watch.shownOnce');
  }

  /**
   * Shows an item unless an answer to a later request is already on screen; answers whether it was news.
   * @param {Item} item @param {number} number the request's number (`asked`)
   */
  function show(item, number) {
    if (number < onScreen) return false;
    onScreen = number;
    // A code this page saw expire stays expired, whatever a slower server clock still says.
    const status = item.usable && locallyExpired ? 'expired' : item.status;
    const seen = JSON.stringify([item, status]);
    if (seen === lastSeen) return false;
    lastSeen = seen;
    shown = item;
    if (followed) followed.id = item.install_code_id;
    const view = describe(item, status);
    watch.dataset.state = view.state;
    watchState.replaceChildren(...view.text);
    showMachine(item, status);
    // Never which server holds the identity: an SSH key can be scanned from outside, so this page must not tell whose host it is.
    stateNote = [prefaceFor(item), item.identity_in_use ? t('watch.identityInUse') : '', view.note]
      .filter(Boolean)
      .join(' ');
    if (!cancelling) showNote(stateNote);
    if (view.final) stopFollowing();
    document.dispatchEvent(
      new CustomEvent('slowdns:code-state', {
        detail: {
          hint: item.install_code_hint,
          status,
          usable: item.usable && !locallyExpired,
          item,
          cancellable: view.cancellable,
          resumed,
        },
      }),
    );
    return true;
  }

  /** @param {Item[]} items */
  function findFollowed(items) {
    if (!followed) return undefined;
    const { id, hint } = followed;
    return items.find((item) => (id ? item.install_code_id === id : item.install_code_hint === hint));
  }

  function stopFollowing() {
    polling = false;
    clearTimeout(timer);
  }

  function schedule() {
    clearTimeout(timer);
    if (polling && !document.hidden) timer = setTimeout(() => void poll(), delay);
  }

  async function poll() {
    if (!polling || inFlight || document.hidden) return;
    inFlight = true;
    const number = ++asked;
    try {
      const { response, body } = await request(STATUS_URL, { headers: { Accept: 'application/json' } });
      if (response.ok && body?.data && Array.isArray(body.data.items)) {
        if (failures >= FAILURES_BEFORE_NOTE) showNote(stateNote);
        failures = 0;
        const item = findFollowed(body.data.items);
        delay = item && show(item, number) ? POLL_FIRST_MS : Math.min(POLL_MAX_MS, delay * 1.5);
      } else if (body?.error && body.error.code === 'browser_session_required') {
        stopFollowing();
        showNote(t('watch.sessionEnded'), 'error');
      } else {
        throw new Error(`status answered ${response.status}`);
      }
    } catch {
      failures += 1;
      delay = Math.min(POLL_ERROR_MAX_MS, Math.max(POLL_FIRST_MS, delay) * 2);
      if (failures === FAILURES_BEFORE_NOTE) showNote(t('watch.unreachable'), 'error');
    } finally {
      inFlight = false;
      schedule();
    }
  }

  /** @param {{ hint: string, id?: string }} code @param {boolean} [again] a code issued before a reload, whose text this page no longer has */
  function follow(code, again = false) {
    followed = { ...code };
    shown = undefined;
    lastSeen = '';
    // An answer to a request sent before this code was followed is about the code before it.
    onScreen = ++asked;
    resumed = again;
    locallyExpired = false;
    failures = 0;
    delay = POLL_FIRST_MS;
    polling = true;
    stateNote = '';
    watchHint.textContent = code.hint;
    watchState.textContent = t('watch.waiting');
    watch.dataset.state = 'waiting';
    machineList.hidden = true;
    showNote('');
    watch.hidden = false;
    void poll();
  }

  /** After a reload the code itself is gone (it is shown once), but a code still in play is followed by its hint. */
  async function resume() {
    try {
      const { response, body } = await request(STATUS_URL, { headers: { Accept: 'application/json' } });
      if (followed || !response.ok || !body || !body.data || !Array.isArray(body.data.items)) return;
      /** @type {Item | undefined} */
      const newest = body.data.items[0];
      if (!newest || !(newest.usable || newest.status === 'activated')) return;
      follow({ hint: newest.install_code_hint, id: newest.install_code_id }, true);
    } catch {
      // Nothing to resume: the page works as if freshly opened.
    }
  }

  document.addEventListener('slowdns:code-issued', (event) => {
    const { hint, id } = /** @type {CustomEvent<{ hint: string, id?: string }>} */ (event).detail;
    follow(id ? { hint, id } : { hint });
  });
  document.addEventListener('slowdns:code-expired', (event) => {
    const { hint } = /** @type {CustomEvent<{ hint: string }>} */ (event).detail;
    if (!followed || followed.hint !== hint) return;
    locallyExpired = true;
    if (shown) show(shown, onScreen);
  });
  document.addEventListener('slowdns:cancel-sent', () => {
    cancelling = true;
  });
  // approval.js: the cancel's answer, the code as it now is (`item`), or `confirmed` when an install had
  // already finished; neither after an error.
  document.addEventListener('slowdns:cancel-answered', (event) => {
    const { item, confirmed } = /** @type {CustomEvent<{ item?: Item, confirmed?: boolean }>} */ (event).detail;
    cancelling = false;
    if (item) {
      show(item, ++asked);
      showNote(stateNote);
    } else if (confirmed) {
      polling = true;
      void poll();
    }
  });
  // approval.js: the person approved or denied a machine; the answer is the code as it now is.
  document.addEventListener('slowdns:code-decided', (event) => {
    const item = /** @type {CustomEvent<Item>} */ (event).detail;
    if (!followed || item.install_code_id !== (followed.id || shown?.install_code_id)) return;
    show(item, ++asked);
    // The installer moves on at once: follow it closely.
    delay = POLL_FIRST_MS;
    schedule();
  });
  document.addEventListener('slowdns:code-refresh', () => {
    if (polling) void poll();
  });
  // Background tabs are not polled; catch up as soon as the page is seen again.
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && polling) void poll();
  });
  void resume();
})();
