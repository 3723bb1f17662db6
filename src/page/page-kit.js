// @ts-check
// What the /slowdns page's scripts share, served as /slowdns/page-kit.js and loaded before them: finding
// the page's elements, asking the service, writing a time. Plain browser JavaScript (the page's
// Content-Security-Policy allows only this service's own files), published as `window.slowdnsPage`.
'use strict';

/**
 * @typedef {{ element: (id: string) => HTMLElement, request: (url: string, init: RequestInit) => Promise<{ response: Response, body: any }>,
 *   post: (url: string, body: unknown) => Promise<{ response: Response, body: any }>, timeElement: (iso: string) => HTMLTimeElement }} SlowdnsPageKit
 */

(() => {
  const REQUEST_TIMEOUT_MS = 20_000;

  /** The element with this id; a page without it is a bug worth stopping at. @param {string} id */
  const element = (id) => {
    const found = document.getElementById(id);
    if (!found) throw new Error(`the page has no #${id}`);
    return found;
  };

  /**
   * One request to this service with the session cookie, never cached, given up after 20 s; the body is
   * the parsed JSON, or undefined.
   * @param {string} url @param {RequestInit} init
   * @returns {Promise<{ response: Response, body: any }>}
   */
  async function request(url, init) {
    const abort = new AbortController();
    const timeout = setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS);
    try {
      const response = await fetch(url, {
        ...init,
        credentials: 'same-origin',
        cache: 'no-store',
        signal: abort.signal,
      });
      const body = await response.json().catch(() => undefined);
      return { response, body };
    } finally {
      clearTimeout(timeout);
    }
  }

  /** A JSON POST. @param {string} url @param {unknown} body */
  const post = (url, body) =>
    request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });

  /** "Nov 25, 2026, 08:43 PM UTC": with the date and the time zone, in this browser's own. @param {string} iso */
  const dateTime = (iso) =>
    new Date(iso).toLocaleString([], {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    });

  /** A `<time>` holding `iso`, written as dateTime writes it. @param {string} iso */
  function timeElement(iso) {
    const time = document.createElement('time');
    time.dateTime = iso;
    time.textContent = dateTime(iso);
    return time;
  }

  Object.defineProperty(window, 'slowdnsPage', { value: Object.freeze({ element, request, post, timeElement }) });
})();
