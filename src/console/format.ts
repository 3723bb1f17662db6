import type { EventRow } from '../domain/events/event-trail.js';
import { html, type Html } from '../html.js';

/** A moment as people read it in the console (UTC, to the minute), with the exact instant for machines. */
export function when(date: Date | null | undefined): Html {
  if (!date) return html`<span class="muted">—</span>`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

/** A state as a small label; `data-tone` colours it (console-lists.css). */
export function badge(state: string): Html {
  return html`<span class="badge" data-state="${state}">${state.replaceAll('_', ' ')}</span>`;
}

const DETAIL_PATHS: Record<string, string> = {
  ic_: '/admin/codes/',
  act_: '/admin/activations/',
  srv_: '/admin/servers/',
};

/** An install code, activation or server id as a link to its detail view; any other id as text. */
export function idLink(id: string | null | undefined): Html {
  if (!id) return html`<span class="muted">—</span>`;
  const path = Object.entries(DETAIL_PATHS).find(([prefix]) => id.startsWith(prefix))?.[1];
  return path
    ? html`<a class="id" href="${path}${encodeURIComponent(id)}">${id}</a>`
    : html`<span class="id">${id}</span>`;
}

/** "Next page" for a list with a cursor, keeping the list's filters. */
export function nextPageLink(
  path: string,
  filters: Record<string, string | undefined>,
  nextCursor: string | null,
): Html {
  if (!nextCursor) return html``;
  const query = new URLSearchParams(
    Object.entries({ ...filters, cursor: nextCursor }).filter((e): e is [string, string] => !!e[1]),
  );
  return html`<p class="pager"><a href="${path}?${query.toString()}">Next page</a></p>`;
}

/**
 * One value of an event's data in words: a record (tags) as `key=value` pairs, the way the tags cell shows them,
 * a list's items space-separated; never `[object Object]`.
 */
function detailValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(detailValue).join(' ');
  if (typeof value === 'object' && value !== null)
    return Object.entries(value)
      .map(([k, v]) => `${k}=${detailValue(v)}`)
      .join(' ');
  return String(value);
}

function eventDetail(e: EventRow): Html {
  const data = (e.data ?? {}) as Record<string, unknown>;
  const operator = typeof data.operator === 'string' ? data.operator : undefined;
  const reason = typeof data.reason === 'string' ? data.reason : undefined;
  const rest = Object.entries(data).filter(
    ([k, v]) => k !== 'operator' && k !== 'reason' && v !== null && v !== undefined,
  );
  return html`${operator ? html`<span class="operator">by ${operator}</span>` : ''}${reason ? html` <q class="reason">${reason}</q>` : ''}${rest.length ? html` <span class="muted">${rest.map(([k, v]) => `${k}: ${detailValue(v)}`).join(', ')}</span>` : ''}`;
}

/** Events as a table: when, what, who, about what, and the operator's name and reason when an operator acted. */
export function eventsTable(events: EventRow[], caption: string, emptyText = 'No events.'): Html {
  const rows = events.map((e) => [
    when(e.occurredAt),
    html`<code>${e.type}</code>`,
    html`${e.actor}`,
    html`<span class="ids">${[e.installCodeId, e.activationId, e.serverId].filter(Boolean).map((id) => idLink(id))}</span>`,
    eventDetail(e),
  ]);
  return dataTable(caption, ['When', 'Event', 'Actor', 'About', 'Details'], rows, emptyText);
}

/** A definition list of an object's facts. */
export function facts(pairs: [string, Html | string | number | null][]): Html {
  return html`<dl class="facts console-facts">${pairs.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value === null ? html`<span class="muted">—</span>` : value}</dd></div>`)}</dl>`;
}

/**
 * A data table: a caption for screen readers, column headings, rows of cells, each cell labelled with its
 * heading (`data-label`): on a phone each row is a block of labelled lines (console-lists.css), never wider than the screen.
 */
export function dataTable(caption: string, headings: string[], rows: Html[][], emptyText: string): Html {
  if (rows.length === 0) return html`<p class="muted">${emptyText}</p>`;
  // A region of its own that the keyboard can reach: a wide table on a narrow desktop window scrolls sideways inside it.
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table>
    <caption class="visually-hidden">${caption}</caption>
    <thead><tr>${headings.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${rows.map((cells) => html`<tr>${cells.map((cell, i) => html`<td data-label="${headings[i] ?? ''}">${cell}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}
