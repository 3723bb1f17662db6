// @ts-check
// What the /slowdns page's scripts share, served as /slowdns/page-kit.js and loaded before them: finding
// the page's elements, asking the service, the page's words in its language (the catalog the server put in
// the page, DESIGN §30), writing a time or a wait. Plain browser JavaScript (the page's
// Content-Security-Policy allows only this service's own files), published as `window.slowdnsPage`.
'use strict';

/**
 * A value put into a message: text, a number (written as the language writes it), `{ ltr }` for what reads left
 * to right in every language (an address, a host name, a key: isolated in a `<bdi dir="ltr">`), or an element.
 * @typedef {string | number | { ltr: string } | Node} MessageValue
 * @typedef {{ element: (id: string) => HTMLElement, request: (url: string, init: RequestInit) => Promise<{ response: Response, body: any }>,
 *   post: (url: string, body: unknown) => Promise<{ response: Response, body: any }>, timeElement: (iso: string) => HTMLTimeElement,
 *   t: (key: string, values?: Record<string, MessageValue>) => string,
 *   words: (key: string, values?: Record<string, MessageValue>) => (string | Node)[],
 *   duration: (seconds: number) => string, errorKey: (code: string) => string,
 *   digits: (value: number, places: number) => string }} SlowdnsPageKit
 */

(() => {
  const REQUEST_TIMEOUT_MS = 20_000;

  /** The element with this id; a page without it is a bug worth stopping at. @param {string} id */
  const element = (id) => {
    const found = document.getElementById(id);
    if (!found) throw new Error(`the page has no #${id}`);
    return found;
  };

  const lang = document.documentElement.lang || 'en';
  /** The page's catalog: `{name}` placeholders; plural messages hold one text per CLDR category. @type {Record<string, string | Record<string, string>>} */
  const messages = JSON.parse(element('page-messages').textContent || '{}');
  const plurals = new Intl.PluralRules(lang);
  const numbers = new Intl.NumberFormat(lang);

  /**
   * A message as text and nodes: its placeholders filled (an unknown key or a missing value is a bug worth
   * stopping at); a plural message takes the form `Intl.PluralRules` picks for `count`.
   * @param {string} key @param {Record<string, MessageValue>} [values]
   * @returns {(string | Node)[]}
   */
  function words(key, values = {}) {
    const message = messages[key];
    if (message === undefined) throw new Error(`the catalog has no ${key}`);
    const count = values.count;
    const text =
      typeof message === 'string'
        ? message
        : message[plurals.select(typeof count === 'number' ? count : 0)] || message.other || '';
    return text.split(/\{([a-zA-Z]+)\}/).map((part, i) => {
      if (i % 2 === 0) return part;
      const value = values[part];
      if (value === undefined) throw new Error(`${key} needs {${part}}`);
      if (typeof value === 'number') return numbers.format(value);
      if (typeof value === 'string' || value instanceof Node) return value;
      const isolated = document.createElement('bdi');
      isolated.dir = 'ltr';
      isolated.textContent = value.ltr;
      return isolated;
    });
  }

  /** A message as plain text (for labels and `aria-label`). @param {string} key @param {Record<string, MessageValue>} [values] */
  const t = (key, values) =>
    words(key, values)
      .map((part) => (typeof part === 'string' ? part : part.textContent))
      .join('');

  /** A whole number in the language's digits, at least `places` of them: `digits(7, 2)` is "07", "۰۷". @param {number} value @param {number} places */
  const digits = (value, places) =>
    new Intl.NumberFormat(lang, { minimumIntegerDigits: places, useGrouping: false }).format(value);

  /**
   * The catalog's key for an error code of the API: the page says every code in its own words, never the API's
   * English message; a code it does not know yet gets the general words. @param {string} code
   */
  const errorKey = (code) => (messages[`error.${code}`] === undefined ? 'error.unknown' : `error.${code}`);

  /**
   * "12 minutes", "1 hour and 5 minutes": a wait in the language's words (Intl's units and lists), minutes
   * rounded up, as the server's durationInWords writes the code's lifetime. @param {number} seconds
   */
  function duration(seconds) {
    if (seconds < 60) return t('wait.lessThanAMinute');
    const minutes = Math.ceil(seconds / 60);
    /** @param {number} value @param {string} unit */
    const unit = (value, unit) =>
      new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
    if (minutes < 60) return unit(minutes, 'minute');
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    const parts = rest ? [unit(hours, 'hour'), unit(rest, 'minute')] : [unit(hours, 'hour')];
    return new Intl.ListFormat(lang, { type: 'conjunction', style: 'long' }).format(parts);
  }

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

  /** "Nov 25, 2026, 08:43 PM UTC": with the date and the time zone (this browser's own), as the page's language writes them. @param {string} iso */
  const dateTime = (iso) =>
    new Date(iso).toLocaleString(lang, {
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

  Object.defineProperty(window, 'slowdnsPage', {
    value: Object.freeze({ element, request, post, timeElement, t, words, duration, errorKey, digits }),
  });
})();
