import type { ConsoleSessionSummary } from '../domain/operators/console-session-list.js';
import { operatorTokenStatus, type OperatorTokenRow } from '../domain/operators/operator-tokens.js';
import { html } from '../html.js';
import { formTokenField, type ConsoleView, type ConsoleViewer } from './console-frame.js';
import { badge, dataTable, when } from './format.js';

/** A token minted in the console lasts at most this many days (DESIGN §26). */
export const CONSOLE_TOKEN_MAX_DAYS = 90;

function tokenRows(tokens: OperatorTokenRow[], viewer: ConsoleViewer, now: Date) {
  return tokens.map((token) => {
    const status = operatorTokenStatus(token, now);
    return [
      html`${token.name}`,
      html`${token.scope}`,
      badge(status),
      html`${token.createdBy ?? '—'}`,
      when(token.expiresAt),
      when(token.lastUsedAt),
      status === 'active'
        ? html`<form method="post" action="/admin/operators/tokens/${token.id}/revoke">${formTokenField(viewer)}<button type="submit" class="button quiet" aria-label="Revoke ${token.name}">Revoke</button></form>`
        : html``,
    ];
  });
}

function sessionRows(sessions: ConsoleSessionSummary[], viewer: ConsoleViewer) {
  return sessions.map((session) => [
    html`${session.operator}${session.name ? html` <span class="muted">(${session.name})</span>` : ''}`,
    html`${session.via === 'sso' ? `SSO (${new URL(session.issuer!).host})` : session.via === 'token' ? 'operator token' : 'ADMIN_TOKEN'}`,
    html`${session.scope}`,
    when(session.lastSeenAt),
    when(session.expiresAt),
    html`<form method="post" action="/admin/operators/sessions/${session.handle}/end">${formTokenField(viewer)}<button type="submit" class="button quiet" aria-label="End the session of ${session.operator}">End</button></form>`,
  ]);
}

/**
 * A `root` operator's page (DESIGN §26): the operator tokens (made here for the command and automation,
 * never above `write`, expiring within 90 days) and the live console sessions, each of which may be ended.
 */
export function operatorsView(
  {
    tokens,
    sessions,
    minted,
    now,
  }: {
    tokens: OperatorTokenRow[];
    sessions: ConsoleSessionSummary[];
    minted?: { name: string; token: string };
    now: Date;
  },
  viewer: ConsoleViewer,
): ConsoleView {
  return {
    title: 'Operators',
    heading: 'Operators',
    section: 'operators',
    content: html`${
      minted
        ? html`  <section class="card" aria-labelledby="minted-heading">
    <h2 id="minted-heading">Token ${minted.name} made</h2>
    <p class="status" data-tone="success" role="status">Keep it now: it is not shown again.</p>
    <p><code id="minted-token">${minted.token}</code></p>
  </section>`
        : ''
    }
  <section class="card" aria-labelledby="new-token-heading">
    <h2 id="new-token-heading">New operator token</h2>
    <form method="post" action="/admin/operators/tokens" class="stack">
      ${formTokenField(viewer)}
      <label for="token-name">Name (who acts with it in events)</label>
      <input id="token-name" name="name" required maxlength="64" pattern="[a-z0-9][a-z0-9._\\-]{0,63}" autocomplete="off">
      <label for="token-scope">Scope</label>
      <select id="token-scope" name="scope"><option value="read">read</option><option value="write">write</option></select>
      <label for="token-days">Expires in (days, at most ${String(CONSOLE_TOKEN_MAX_DAYS)})</label>
      <input id="token-days" name="expires_in_days" type="number" min="1" max="${String(CONSOLE_TOKEN_MAX_DAYS)}" value="30" required>
      <button type="submit" class="button primary">Make the token</button>
    </form>
  </section>
  <section class="card" aria-labelledby="tokens-heading">
    <h2 id="tokens-heading">Operator tokens</h2>
    ${dataTable('Operator tokens', ['Name', 'Scope', 'Status', 'Made by', 'Expires', 'Last used', ''], tokenRows(tokens, viewer, now), 'No operator tokens.')}
  </section>
  <section class="card" aria-labelledby="sessions-heading">
    <h2 id="sessions-heading">Console sessions</h2>
    ${dataTable('Live console sessions', ['Operator', 'Signed in with', 'Scope', 'Last seen', 'Ends', ''], sessionRows(sessions, viewer), 'No live sessions.')}
  </section>`,
  };
}
