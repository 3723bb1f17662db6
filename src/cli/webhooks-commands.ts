import type { Command } from 'commander';
import type { components } from '../../clients/typescript/src/schema.js';
import { actionCommand } from './action-command.js';
import { adminApi, dataOf } from './admin-api.js';
import { connectionFrom, connectionOptions, type ConnectionFlags } from './connection.js';
import { outputFor, type CliContext } from './context.js';
import { print, type Row } from './output.js';

type Endpoint = components['schemas']['WebhookEndpointRecord'];
type EventFilter = components['schemas']['WebhookEventFilter'];
type Format = components['schemas']['WebhookFormat'];
const FORMATS: Format[] = ['standard', 'slack', 'discord', 'teams', 'google_chat'];

const row = (e: Endpoint): Row => ({
  id: e.webhook_id,
  health: e.health,
  host: e.url_host,
  events: e.events.join(','),
  format: e.format,
  pending: e.pending_deliveries,
  last_success_at: e.last_success_at,
  failing_since: e.failing_since,
});
const columns = ['id', 'health', 'host', 'events', 'format', 'pending', 'last_success_at', 'failing_since'];

const endpointAction = (
  name: string,
  description: string,
  act: Parameters<typeof actionCommand<Endpoint, { json?: boolean }>>[2]['act'],
  done: (e: Endpoint) => string,
) => ({
  name,
  argument: ['<webhook_id>', 'the endpoint (wh_…)'] as [string, string],
  description,
  act,
  row,
  columns,
  done,
});

type Delivery = components['schemas']['WebhookDeliveryRecord'];

const deliveryRow = (d: Delivery): Row => {
  const last = d.attempts.at(-1);
  return {
    id: d.delivery_id,
    type: d.type,
    status: d.status,
    attempts: d.attempts.length,
    last_result: last ? (last.status_code ?? last.error) : null,
    next_attempt_at: d.next_attempt_at,
    created_at: d.created_at,
  };
};
const deliveryColumns = ['id', 'type', 'status', 'attempts', 'last_result', 'next_attempt_at', 'created_at'];

/** `webhooks add|list|show|pause|resume|rotate-secret|test|deliveries|replay|remove` over the admin API. */
export function registerWebhooksCommands(program: Command, context: CliContext): void {
  const webhooks = program
    .command('webhooks')
    .description(
      'signed webhooks from the event trail (admin API): add, list, show, pause, resume, rotate-secret, test, deliveries, replay, remove',
    );

  actionCommand<
    Endpoint & { secret: string | null },
    { json?: boolean; events: string; description?: string; format: string }
  >(webhooks, context, {
    name: 'add',
    argument: ['<url>', 'where messages are POSTed (https); kept sealed, not shown again'],
    description: 'add an endpoint; a standard one prints its signing secret once',
    options: (c) =>
      c
        .option('--events <types>', 'event types, comma-separated, or * for all', '*')
        .option('--format <format>', `what each message is: ${FORMATS.join(', ')}`, 'standard')
        .option('--description <text>', 'a note for operators'),
    act: (api, url, flags) =>
      api.POST('/api/v2/admin/webhooks', {
        body: {
          url,
          events: flags.events.split(',').map((e) => e.trim()) as EventFilter[],
          format: flags.format as Format,
          ...(flags.description ? { description: flags.description } : {}),
        },
      }),
    row: (e) => ({ ...row(e), secret: e.secret }),
    columns: [...columns, 'secret'],
    done: (e) =>
      e.secret === null
        ? `${e.webhook_id} added (${e.format}: one message a minute at most, no secret).`
        : `${e.webhook_id} added. Its secret is shown this once: ${e.secret}`,
  });

  connectionOptions(
    webhooks.command('list').description('every endpoint with its health, pending deliveries and last success'),
  )
    .option('--json', 'print the result as JSON')
    .action(async (flags: ConnectionFlags & { json?: boolean }) => {
      const connection = connectionFrom(context.env, flags);
      const list = await dataOf(connection.url, adminApi(connection).GET('/api/v2/admin/webhooks'));
      print(outputFor(context, flags), list, list.items.map(row), columns);
    });

  const path = (id: string) => ({ params: { path: { webhook_id: id } } });
  actionCommand(
    webhooks,
    context,
    endpointAction(
      'show',
      'one endpoint',
      (api, id) => api.GET('/api/v2/admin/webhooks/{webhook_id}', path(id)),
      (e) => `${e.webhook_id}: ${e.format} to ${e.url_host}, ${e.health}`,
    ),
  );
  actionCommand(
    webhooks,
    context,
    endpointAction(
      'pause',
      'pause an endpoint: its messages wait',
      (api, id) => api.PATCH('/api/v2/admin/webhooks/{webhook_id}', { ...path(id), body: { paused: true } }),
      (e) => `${e.webhook_id} is ${e.status}.`,
    ),
  );
  actionCommand(
    webhooks,
    context,
    endpointAction(
      'resume',
      'resume (or re-enable) an endpoint: its waiting messages go out',
      (api, id) => api.PATCH('/api/v2/admin/webhooks/{webhook_id}', { ...path(id), body: { paused: false } }),
      (e) => `${e.webhook_id} is ${e.status}.`,
    ),
  );
  actionCommand<components['schemas']['RotatedWebhookSecret'], { json?: boolean }>(webhooks, context, {
    name: 'rotate-secret',
    argument: ['<webhook_id>', 'the endpoint (wh_…)'],
    description: 'a new signing secret, printed once; the previous one signs too for 24 hours',
    act: (api, id) => api.POST('/api/v2/admin/webhooks/{webhook_id}/rotate-secret', path(id)),
    row: (r) => ({ id: r.webhook_id, secret: r.secret, previous_secret_expires_at: r.previous_secret_expires_at }),
    columns: ['id', 'secret', 'previous_secret_expires_at'],
    done: (r) => `New secret of ${r.webhook_id}, shown this once: ${r.secret}`,
  });
  actionCommand<Delivery, { json?: boolean }>(webhooks, context, {
    name: 'test',
    argument: ['<webhook_id>', 'the endpoint (wh_…)'],
    description: 'queue a webhook.test message to the endpoint',
    act: (api, id) => api.POST('/api/v2/admin/webhooks/{webhook_id}/test', path(id)),
    row: deliveryRow,
    columns: deliveryColumns,
    done: (d) => `Test message ${d.delivery_id} queued.`,
  });
  connectionOptions(
    webhooks
      .command('deliveries')
      .description("an endpoint's newest 100 messages with their attempts")
      .argument('<webhook_id>', 'the endpoint (wh_…)'),
  )
    .option('--json', 'print the result as JSON')
    .action(async (id: string, flags: ConnectionFlags & { json?: boolean }) => {
      const connection = connectionFrom(context.env, flags);
      const list = await dataOf(
        connection.url,
        adminApi(connection).GET('/api/v2/admin/webhooks/{webhook_id}/deliveries', path(id)),
      );
      print(outputFor(context, flags), list, list.items.map(deliveryRow), deliveryColumns);
    });
  actionCommand<Delivery, { json?: boolean }>(webhooks, context, {
    name: 'replay',
    argument: ['<delivery_id>', 'the delivery (whd_…)'],
    description: 'send a message again, with the same webhook-id',
    act: (api, id) =>
      api.POST('/api/v2/admin/webhook-deliveries/{delivery_id}/replay', { params: { path: { delivery_id: id } } }),
    row: deliveryRow,
    columns: deliveryColumns,
    done: (d) => `${d.delivery_id} queued again.`,
  });
  actionCommand<components['schemas']['RemovedWebhook'], { json?: boolean }>(webhooks, context, {
    name: 'remove',
    argument: ['<webhook_id>', 'the endpoint (wh_…)'],
    description: 'remove an endpoint with its deliveries',
    act: (api, id) => api.DELETE('/api/v2/admin/webhooks/{webhook_id}', path(id)),
    row: (r) => ({ id: r.webhook_id, removed: r.removed }),
    columns: ['id', 'removed'],
    done: (r) => `${r.webhook_id} removed.`,
  });
}
