import type { WebhookEndpointRow } from '../domain/webhooks/endpoints.js';
import { html, type Html } from '../html.js';
import { formTokenField, type ConsoleView, type ConsoleViewer } from './console-frame.js';

/** The formats the form offers, in the words of each platform (DESIGN §28). */
const FORMAT_CHOICES: readonly [string, string][] = [
  ['standard', 'Standard Webhooks (signed, one message per event)'],
  ['slack', 'Slack incoming webhook'],
  ['discord', 'Discord webhook'],
  ['teams', 'Microsoft Teams (Workflows webhook)'],
  ['google_chat', 'Google Chat webhook'],
];

export type WebhookFormValues = Partial<Record<'url' | 'format' | 'events' | 'description', string>>;

function field(id: string, label: string, control: Html, hint?: string): Html {
  return html`<div class="field"><label for="${id}">${label}</label>${hint ? html`<p class="fine-print" id="${id}-hint">${hint}</p>` : ''}${control}</div>`;
}

/** The form that adds an endpoint (write scope; a token used once, as the code form's). The URL is never put back in the page. */
export function createWebhookFormView(
  viewer: ConsoleViewer,
  createToken: string,
  problem?: string,
  values: WebhookFormValues = {},
): ConsoleView {
  const format = values.format ?? 'standard';
  return {
    title: 'New webhook endpoint',
    heading: 'New webhook endpoint',
    section: 'webhooks',
    content: html`${problem ? html`<p class="status" data-tone="error" role="alert">${problem}</p>` : ''}
  <section class="card" aria-labelledby="create-webhook-heading">
    <h2 id="create-webhook-heading">Where messages go</h2>
    <p class="fine-print">A chat format posts one line per event, at most one message a minute (a digest when more happened), with a link to this console. The URL is kept sealed and shown once.</p>
    <form method="post" action="/admin/webhooks" class="stack">
      ${field('url', 'URL', html`<input id="url" name="url" type="url" required maxlength="2048" autocomplete="off" placeholder="https://hooks.slack.com/services/…">`)}
      ${field('format', 'Format', html`<select id="format" name="format">${FORMAT_CHOICES.map(([value, label]) => html`<option value="${value}"${value === format ? html` selected` : ''}>${label}</option>`)}</select>`)}
      ${field('events', 'Event types, comma-separated, or * for all', html`<input id="events" name="events" type="text" required autocomplete="off" aria-describedby="events-hint" value="${values.events ?? 'install_code.approval_requested, server.went_stale, server.went_dead, server.recovered, install_code.expiry_warned, operator_token.expiry_warned'}">`, 'What needs an operator: approvals, servers gone quiet and back, codes and tokens about to expire.')}
      ${field('description', 'Description (optional)', html`<input id="description" name="description" type="text" maxlength="200" autocomplete="off" value="${values.description ?? ''}">`)}
      ${formTokenField(viewer)}
      <input type="hidden" name="create_token" value="${createToken}">
      <button type="submit" class="button">Add the endpoint</button>
    </form>
  </section>`,
  };
}

/** The new endpoint: its URL and (for a standard one) its secret, shown this once. */
export function createdWebhookView(endpoint: WebhookEndpointRow, url: string, secret: string | null): ConsoleView {
  return {
    title: 'Webhook endpoint added',
    heading: `Webhook endpoint ${endpoint.urlHost}`,
    section: 'webhooks',
    content: html`<p class="status" data-tone="success" role="status">Added. ${secret ? 'Copy the secret now: neither it nor the URL is shown again.' : 'Its URL is kept sealed and not shown again.'}</p>
  <section class="card" aria-labelledby="created-webhook-heading">
    <h2 id="created-webhook-heading">${endpoint.id}</h2>
    <p>Format: <code>${endpoint.format}</code>. URL: <code>${url}</code></p>
    ${secret ? html`<p>Signing secret: <code class="secret">${secret}</code></p>` : ''}
    <p><a href="/admin/webhooks">Back to the webhooks</a></p>
  </section>`,
  };
}
