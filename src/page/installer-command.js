// The ready-to-paste activate.sh command of the /slowdns page: shown once app.js has issued a code.
// The code goes into the environment of the command (SLOWDNS_INSTALL_CODE=…), never into its arguments.
(() => {
  'use strict';
  const section = document.getElementById('installer-command');
  const text = document.getElementById('installer-command-text');
  const copy = document.getElementById('installer-command-copy');
  if (!section || !text || !copy) return;
  const base = section.dataset.baseUrl || '';
  const sha256 = section.dataset.scriptSha256 || '';

  /** @param {string} code */
  function command(code) {
    return [
      `curl -fsSLo activate.sh ${base}/slowdns/activate.sh`,
      `echo '${sha256}  activate.sh' | sha256sum -c -`,
      `SLOWDNS_URL=${base} SLOWDNS_INSTALL_CODE=${code} sh activate.sh run -- ./install.sh`,
    ].join(' \\\n  && ');
  }

  document.addEventListener('slowdns:code-issued', (event) => {
    const code = /** @type {CustomEvent<{ install_code: string }>} */ (event).detail.install_code;
    // Codes are [A-Z0-9-] by contract: nothing in them needs quoting in a shell.
    if (!/^[A-Z0-9-]+$/.test(code)) return;
    text.textContent = command(code);
    section.hidden = false;
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
