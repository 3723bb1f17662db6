import type { ConsoleView } from './console-frame.js';
import { html } from '../html.js';

/** A refusal or failure as a page: what happened, that nothing changed, and a way back. */
export function errorView(heading: string, message: string): ConsoleView {
  return {
    title: heading,
    heading,
    content: html`  <section class="card" aria-labelledby="error-heading">
    <h2 id="error-heading" class="visually-hidden">What happened</h2>
    <p class="status" data-tone="error" role="alert">${message}</p>
    <p><a href="/admin">Back to the overview</a></p>
  </section>`,
  };
}
