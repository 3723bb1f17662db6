import type { ActivationListItem } from '../domain/admin-lists/activation-list.js';
import type { InstallCodeListItem } from '../domain/admin-lists/install-code-list.js';
import type { Page } from '../domain/admin-lists/pagination.js';
import type { ServerListItem } from '../domain/admin-lists/server-list.js';
import type { EventRow } from '../domain/events/event-trail.js';
import type { ConsoleSection, ConsoleView } from './console-frame.js';
import { tagsCell, usesCell } from './fleet-code-views.js';
import { badge, dataTable, eventsTable, idLink, nextPageLink, when } from './format.js';
import { html, type Html } from '../html.js';

/** The filters of a list view, as its GET form and its next-page link carry them. */
export type ListFilters = Record<string, string | undefined>;

interface FilterField {
  name: string;
  label: string;
  /** A select's choices (the first, empty, is "any"); left out: a search field. */
  options?: readonly string[];
}

/** The filter form over a list: plain GET, so a filtered list is a link an operator can share. */
function filterForm(path: string, fields: FilterField[], filters: ListFilters): Html {
  const inputs = fields.map((f) => {
    const value = filters[f.name] ?? '';
    const control = f.options
      ? html`<select id="filter-${f.name}" name="${f.name}"><option value="">any</option>${f.options.map((o) => html`<option${o === value ? html` selected` : ''}>${o}</option>`)}</select>`
      : html`<input id="filter-${f.name}" name="${f.name}" type="search" value="${value}" maxlength="200" autocomplete="off">`;
    return html`<div class="field"><label for="filter-${f.name}">${f.label}</label>${control}</div>`;
  });
  return html`<form method="get" action="${path}" class="filters" role="search" aria-label="Filter the list">${inputs}<button type="submit" class="button secondary">Filter</button></form>`;
}

function listView(
  section: ConsoleSection,
  title: string,
  path: string,
  fields: FilterField[],
  filters: ListFilters,
  table: Html,
  nextCursor: string | null,
): ConsoleView {
  return {
    title,
    heading: title,
    section,
    content: html`  ${filterForm(path, fields, filters)}
  <section class="card list" aria-label="${title}">
    ${table}
    ${nextPageLink(path, filters, nextCursor)}
  </section>`,
  };
}

export const CODE_STATUSES = ['issued', 'activated', 'consumed', 'exhausted', 'expired', 'revoked'] as const;
export const ACTIVATION_STATUSES = ['activated', 'confirmed', 'released'] as const;
export const SERVER_HEALTHS = ['active', 'stale', 'dead', 'revoked'] as const;

export function codeRows(items: InstallCodeListItem[]): Html[][] {
  return items.map((item) => {
    const { code, status, activation } = item;
    return [
      idLink(code.id),
      html`<code>${code.hint}</code>`,
      badge(status),
      usesCell(item),
      tagsCell(code.tags),
      when(code.issuedAt),
      when(code.expiresAt),
      activation ? html`${activation.hostname}` : html`<span class="muted">—</span>`,
    ];
  });
}
export const CODE_HEADINGS = ['Id', 'Hint', 'Status', 'Uses', 'Tags', 'Issued', 'Expires', 'Used on'];

export function activationRows(items: ActivationListItem[]): Html[][] {
  return items.map(({ activation: a, server }) => [
    idLink(a.id),
    html`${a.hostname}`,
    html`${a.publicIp}`,
    badge(a.status),
    when(a.createdAt),
    server ? idLink(server.id) : html`<span class="muted">—</span>`,
  ]);
}
export const ACTIVATION_HEADINGS = ['Id', 'Host', 'Public IP', 'Status', 'Created', 'Server'];

export function serverRows(items: ServerListItem[]): Html[][] {
  return items.map(({ server: s, health }) => [
    idLink(s.id),
    html`${s.hostname}`,
    html`${s.publicIp}`,
    badge(health),
    when(s.lastSeenAt),
    when(s.registeredAt),
  ]);
}
export const SERVER_HEADINGS = ['Id', 'Host', 'Public IP', 'Health', 'Last check-in', 'Registered'];

export function codesListView(
  page: Page<InstallCodeListItem>,
  filters: ListFilters,
  search: FilterField[],
  /** A write-scope session gets the link to the create form. */
  canCreate = false,
): ConsoleView {
  const view = listView(
    'codes',
    'Install codes',
    '/admin/codes',
    [...search, { name: 'status', label: 'Status', options: CODE_STATUSES }],
    filters,
    dataTable('Install codes, newest first', CODE_HEADINGS, codeRows(page.items), 'No install code matches.'),
    page.nextCursor,
  );
  if (!canCreate) return view;
  return {
    ...view,
    content: html`<p><a class="button" href="/admin/codes/new">New code for a fleet</a></p>${view.content}`,
  };
}

export function activationsListView(
  page: Page<ActivationListItem>,
  filters: ListFilters,
  search: FilterField[],
): ConsoleView {
  return listView(
    'activations',
    'Activations',
    '/admin/activations',
    [...search, { name: 'status', label: 'Status', options: ACTIVATION_STATUSES }],
    filters,
    dataTable('Activations, newest first', ACTIVATION_HEADINGS, activationRows(page.items), 'No activation matches.'),
    page.nextCursor,
  );
}

export function serversListView(page: Page<ServerListItem>, filters: ListFilters, search: FilterField[]): ConsoleView {
  return listView(
    'servers',
    'Servers',
    '/admin/servers',
    [...search, { name: 'health', label: 'Health', options: SERVER_HEALTHS }],
    filters,
    dataTable('Servers, newest registered first', SERVER_HEADINGS, serverRows(page.items), 'No server matches.'),
    page.nextCursor,
  );
}

export function eventsListView(page: Page<EventRow>, filters: ListFilters, types: readonly string[]): ConsoleView {
  return listView(
    'events',
    'Events',
    '/admin/events',
    [{ name: 'type', label: 'Type', options: types }],
    filters,
    eventsTable(page.items, 'Events, newest first', 'No event matches.'),
    page.nextCursor,
  );
}
