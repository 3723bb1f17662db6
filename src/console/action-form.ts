import { formTokenField, type ConsoleViewer } from './console-frame.js';
import { html, type Html } from '../html.js';

export interface ConsoleAction {
  /** Where the form posts, e.g. `/admin/activations/act_…/release`. */
  path: string;
  /** What the disclosure says, e.g. "Release this activation…". */
  summary: string;
  /** The confirmation: what will happen, in words. */
  consequence: Html | string;
  /** The submit button, naming the object, e.g. "Release act_…". */
  button: string;
}

/**
 * An operator action on a detail view: closed until opened (a native `<details>`, so the keyboard alone
 * works and no script is needed), then the confirmation naming what will happen, a reason (kept in the
 * event with the operator's name) and the button. A read-scope session gets none: it sees what it may do.
 */
export function actionForm(viewer: ConsoleViewer, action: ConsoleAction, id: string): Html {
  if (viewer.scope !== 'write') return html``;
  return html`<details class="action">
    <summary>${action.summary}</summary>
    <form method="post" action="${action.path}" class="stack">
      <p class="confirm-question">${action.consequence}</p>
      <label for="reason-${id}">Reason <span class="muted">(kept in the event with your name)</span></label>
      <input id="reason-${id}" name="reason" type="text" required maxlength="200" autocomplete="off">
      ${formTokenField(viewer)}
      <button type="submit" class="button danger">${action.button}</button>
    </form>
  </details>`;
}

/** The note a read-scope operator sees where the actions would be. */
export function readOnlyNote(viewer: ConsoleViewer): Html {
  return viewer.scope === 'write'
    ? html``
    : html`<p class="fine-print">You are signed in with a read-only token: actions need a token with the write scope.</p>`;
}
