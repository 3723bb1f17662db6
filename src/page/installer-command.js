// The ready-to-paste activate.sh command of the /slowdns page: shown once app.js has issued a code, and
// only while that code can still be entered (watch.js reports its state with `slowdns:code-state`):
// a cancelled, expired, used or in-use code would only make the command fail on the server.
// The code goes into the environment of the command (SLOWDNS_INSTALL_CODE=…), never into its arguments.
(() => {
  'use strict';
  const section = document.getElementById('installer-command');
  const text = document.getElementById('installer-command-text');
  const copy = document.getElementById('installer-command-copy');
  if (!section || !text || !copy) return;
  const base = section.dataset.baseUrl || '';
  const sha256 = section.dataset.scriptSha256 || '';
  /** The hint of the code in the command; '' once there is none or it expired (it never comes back). */
  let hint = '';

  /** @param {string} code */
  function command(code) {
    return [
      `curl -fsSLo activate.sh ${base}/slowdns/activate.sh`,
      `echo '${sha256}  activate.sh' | sha256sum -c -`,
      `SLOWDNS_URL=${base} SLOWDNS_INSTALL_CODE=${code} sh activate.sh run -- ./install.sh`,
    ].join(' \\\n  && ');
  }

  document.addEventListener('slowdns:code-issued', (event) => {
    const detail = /** @type {CustomEvent<{ install_code: string, hint: string }>} */ (event).detail;
    const code = detail.install_code;
    // Codes are [A-Z0-9-] by contract: nothing in them needs quoting in a shell.
    if (!/^[A-Z0-9-]+$/.test(code)) return;
    hint = detail.hint;
    text.textContent = command(code);
    section.hidden = false;
  });

  // In use (activated) hides it too; a failed install that gives the code back shows it again.
  document.addEventListener('slowdns:code-state', (event) => {
    const detail = /** @type {CustomEvent<{ hint: string, usable: boolean }>} */ (event).detail;
    if (!hint || detail.hint !== hint) return;
    section.hidden = !detail.usable;
  });

  document.addEventListener('slowdns:code-expired', (event) => {
    if (!hint || /** @type {CustomEvent<{ hint: string }>} */ (event).detail.hint !== hint) return;
    hint = '';
    section.hidden = true;
  });

  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text.textContent || '');
      copy.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(text);
      const selection = window.getSelection();
      if (selection) {
        selection.removeAllRanges();
        selection.addRange(range);
      }
      copy.textContent = 'Selected: press Ctrl+C';
    }
    setTimeout(() => {
      copy.textContent = 'Copy command';
    }, 2000);
  });
})();
