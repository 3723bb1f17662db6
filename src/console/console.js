// @ts-check
// The operator console's one script, served as /admin/console.js. Everything works without it: it only
// adds the "/" key, which brings the search box into focus (or opens the search page where there is none),
// as on GitHub and in many consoles. Typing in a field is left alone.
(() => {
  'use strict';
  document.addEventListener('keydown', (event) => {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = /** @type {HTMLElement | null} */ (event.target instanceof HTMLElement ? event.target : null);
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    event.preventDefault();
    const box = /** @type {HTMLInputElement | null} */ (document.getElementById('q'));
    if (box) {
      box.focus();
      box.select();
    } else {
      window.location.assign('/admin/search');
    }
  });
})();
