import type { ActivationListItem } from '../domain/admin-lists/activation-list.js';
import type { InstallCodeListItem } from '../domain/admin-lists/install-code-list.js';
import type { ServerListItem } from '../domain/admin-lists/server-list.js';
import type { ConsoleView } from './console-frame.js';
import { dataTable } from './format.js';
import { html, type Html } from '../html.js';
import {
  ACTIVATION_HEADINGS,
  activationRows,
  CODE_HEADINGS,
  codeRows,
  SERVER_HEADINGS,
  serverRows,
} from './list-views.js';
import { searchForm } from './overview-view.js';

/** How many of each kind the search view shows; the list behind "All … matching" has the rest. */
export const SEARCH_SHOWN = 20;

export interface SearchFound {
  codes: InstallCodeListItem[];
  activations: ActivationListItem[];
  servers: ServerListItem[];
}

function foundSection(id: string, title: string, q: string, list: string, table: Html, count: number): Html {
  return html`<section class="card" aria-labelledby="${id}">
    <h2 id="${id}">${title} <span class="muted">(${count === SEARCH_SHOWN ? `the first ${count}` : count})</span></h2>
    ${table}
    ${count ? html`<p class="pager"><a href="/admin/${list}?q=${encodeURIComponent(q)}">All ${title.toLowerCase()} matching</a></p>` : ''}
  </section>`;
}

/** What the search box found: codes, activations and servers, each as its list shows them. */
export function searchView(q: string | undefined, found: SearchFound | undefined): ConsoleView {
  return {
    title: q ? `Search: ${q}` : 'Search',
    heading: q ? `Found for “${q}”` : 'Search',
    section: 'overview',
    content: html`  ${searchForm(q)}
  ${
    found && q
      ? [
          foundSection(
            'found-activations',
            'Activations',
            q,
            'activations',
            dataTable(
              `Activations matching ${q}`,
              ACTIVATION_HEADINGS,
              activationRows(found.activations),
              'No activation matches.',
            ),
            found.activations.length,
          ),
          foundSection(
            'found-servers',
            'Servers',
            q,
            'servers',
            dataTable(`Servers matching ${q}`, SERVER_HEADINGS, serverRows(found.servers), 'No server matches.'),
            found.servers.length,
          ),
          foundSection(
            'found-codes',
            'Install codes',
            q,
            'codes',
            dataTable(`Install codes matching ${q}`, CODE_HEADINGS, codeRows(found.codes), 'No install code matches.'),
            found.codes.length,
          ),
        ]
      : ''
  }`,
  };
}
