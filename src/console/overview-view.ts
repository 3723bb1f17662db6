import type { ActivationHour } from '../domain/admin-lists/activation-hours.js';
import type { StateCounts } from '../domain/admin-lists/state-counts.js';
import { SERVER_HEALTHS } from './list-views.js';
import type { EventRow } from '../domain/events/event-trail.js';
import { renderActivityChart } from './activity-chart.js';
import type { ConsoleView } from './console-frame.js';
import { dataTable, eventsTable } from './format.js';
import type { WaitingWork } from '../domain/admin-lists/waiting-work.js';
import { html, type Html } from '../html.js';

/** The search box: finds codes, activations and servers by part of a host name or hint, or the start of an id. */
export function searchForm(q = ''): Html {
  return html`<form method="get" action="/admin/search" class="search" role="search" aria-label="Find a code, activation or server">
    <label for="q">Find a code, activation or server</label>
    <div class="search-row">
      <input id="q" name="q" type="search" value="${q}" maxlength="200" autocomplete="off" placeholder="part of a host name or hint, or an id's start" aria-describedby="q-help">
      <button type="submit" class="button primary">Search</button>
    </div>
    <p id="q-help" class="fine-print">Press <kbd>/</kbd> anywhere in the console to come back here.</p>
  </form>`;
}

function countTile(label: string, value: number, href: string): Html {
  return html`<li class="tile"><a href="${href}"><span class="tile-value">${value}</span> <span class="tile-label">${label}</span></a></li>`;
}

/** The fleet codes whose machines wait on an operator, each linking to its detail view, where they are decided. */
function waitingSection(work: WaitingWork): Html {
  if (work.machinesWaiting === 0) return html``;
  const rows = work.codes.map((c) => [
    html`<a href="/admin/codes/${encodeURIComponent(c.id)}"><code>${c.hint}</code></a>`,
    html`${c.description ?? ''}`,
    html`${c.waiting}`,
  ]);
  return html`<section class="card" aria-labelledby="waiting-heading">
    <h2 id="waiting-heading">Machines waiting for your approval</h2>
    <p class="fine-print">Their installers wait until an operator approves or denies each one on the code's page.</p>
    ${dataTable('Fleet codes with machines waiting for approval, most first', ['Code', 'Description', 'Waiting'], rows, '')}
  </section>`;
}

function countsSection(counts: StateCounts, work: WaitingWork): Html {
  const waitingHref =
    work.codes.length === 1 ? `/admin/codes/${encodeURIComponent(work.codes[0]!.id)}` : '#waiting-heading';
  return html`<section class="card" aria-labelledby="counts-heading">
    <h2 id="counts-heading">Now</h2>
    <ul class="tiles">
      ${countTile('machines waiting for approval', work.machinesWaiting, waitingHref)}
      ${countTile('codes a machine can use', work.usableCodes, '/admin/codes?status=issued')}
      ${countTile('activations waiting for confirm', counts.activationsAwaitingConfirm, '/admin/activations?status=activated')}
      ${countTile('webhook deliveries waiting', counts.webhookDeliveriesPending, '/admin/webhooks')}
    </ul>
  </section>
  <section class="card" aria-labelledby="health-heading">
    <h2 id="health-heading">Servers by health</h2>
    <ul class="tiles">
      ${SERVER_HEALTHS.map((health) => html`<li class="tile" data-health="${health}"><a href="/admin/servers?health=${health}"><span class="tile-value">${counts.servers[health] ?? 0}</span> <span class="tile-label">${health}</span></a></li>`)}
    </ul>
  </section>`;
}

export function overviewView(
  counts: StateCounts,
  work: WaitingWork,
  hours: ActivationHour[],
  latest: EventRow[],
): ConsoleView {
  return {
    title: 'Overview',
    heading: 'Overview',
    section: 'overview',
    content: html`  ${searchForm()}
  ${countsSection(counts, work)}
  ${waitingSection(work)}
  <section class="card" aria-labelledby="chart-heading">
    <h2 id="chart-heading">Activations per hour, last 7 days</h2>
    ${renderActivityChart(hours)}
  </section>
  <section class="card" aria-labelledby="latest-heading">
    <h2 id="latest-heading">Latest events</h2>
    ${eventsTable(latest, 'The latest events, newest first')}
    <p class="pager"><a href="/admin/events">All events</a></p>
  </section>`,
  };
}
