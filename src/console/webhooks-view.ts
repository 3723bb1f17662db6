import type { WebhookAttemptRow, WebhookDeliveryRow } from '../domain/webhooks/deliveries.js';
import { webhookEndpointHealth, type WebhookEndpointView } from '../domain/webhooks/endpoints.js';
import { formTokenField, type ConsoleView, type ConsoleViewer } from './console-frame.js';
import { badge, dataTable, facts, when } from './format.js';
import { html, type Html } from '../html.js';
import { readOnlyNote } from './action-form.js';

export interface EndpointWithDeliveries {
  view: WebhookEndpointView;
  deliveries: { delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }[];
}

function lastAnswer(attempts: WebhookAttemptRow[]): Html {
  const last = attempts[attempts.length - 1];
  if (!last) return html`<span class="muted">not tried yet</span>`;
  return html`${last.statusCode ?? last.error ?? '—'} <span class="muted">(${last.durationMs} ms)</span>`;
}

function replayForm(viewer: ConsoleViewer, delivery: WebhookDeliveryRow): Html {
  return html`<form method="post" action="/admin/webhook-deliveries/${delivery.id}/replay" class="inline-form">${formTokenField(viewer)}<button type="submit" class="button secondary small" aria-label="Replay ${delivery.eventType} delivery ${delivery.id}">Replay</button></form>`;
}

function endpointSection(
  viewer: ConsoleViewer,
  { view: { endpoint: e, pendingDeliveries }, deliveries }: EndpointWithDeliveries,
): Html {
  const canReplay = viewer.scope === 'write';
  const rows = deliveries.map(({ delivery: d, attempts }) => [
    when(d.createdAt),
    html`<code>${d.eventType}</code>`,
    badge(d.status),
    html`${d.attempts}`,
    lastAnswer(attempts),
    ...(canReplay ? [replayForm(viewer, d)] : []),
  ]);
  return html`<section class="card" aria-labelledby="endpoint-${e.id}">
    <h2 id="endpoint-${e.id}">${e.urlHost}</h2>
    ${facts([
      ['Id', html`<span class="id">${e.id}</span>`],
      ['Format', e.format],
      ['Description', e.description],
      ['Health', badge(webhookEndpointHealth(e))],
      ['Waiting to be sent', pendingDeliveries],
      ['Last success', e.lastSuccessAt ? when(e.lastSuccessAt) : null],
      ['Last failure', e.lastFailureAt ? when(e.lastFailureAt) : null],
      ['Failing since', e.failingSince ? when(e.failingSince) : null],
    ])}
    <h3>Recent deliveries</h3>
    ${dataTable(`Recent deliveries to ${e.urlHost}, newest first`, ['Made', 'Type', 'Status', 'Attempts', 'Last answer', ...(canReplay ? ['Replay'] : [])], rows, 'No delivery yet.')}
  </section>`;
}

/** Webhook endpoints with their health and their recent deliveries; replay for a write-scope session. */
export function webhooksView(
  viewer: ConsoleViewer,
  endpoints: EndpointWithDeliveries[],
  replayed: string | undefined,
): ConsoleView {
  return {
    title: 'Webhooks',
    heading: 'Webhooks',
    section: 'webhooks',
    content: html`${replayed ? html`<p class="status" data-tone="success" role="status">Delivery ${replayed} is queued again: it goes out within a few seconds with the same webhook-id.</p>` : ''}
  ${readOnlyNote(viewer)}
  ${viewer.scope === 'write' ? html`<p><a class="button" href="/admin/webhooks/new">Add an endpoint</a></p>` : ''}
  ${endpoints.length ? endpoints.map((endpoint) => endpointSection(viewer, endpoint)) : html`<section class="card"><p class="muted">No webhook endpoint. Add one here or with <code>slowdns webhooks add</code> (see the operators’ guide).</p></section>`}`,
  };
}
