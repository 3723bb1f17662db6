/**
 * What a chat message says of one event (DESIGN §28): one line a person understands, in plain text (each
 * format escapes it for its platform), and where in the console to look. Built from the Standard Webhooks
 * body the dispatch made (`{type, timestamp, data}`): what a standard endpoint receives, told in words.
 */
export interface ChatEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

type Data = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/** A fleet code by its description and hint, else its id. */
const code = (d: Data) => {
  const label = text(d.description);
  const hint = text(d.hint);
  const id = text(d.install_code_id) ?? 'an install code';
  if (label) return `"${label}" (${hint ?? id})`;
  return hint ?? id;
};
const server = (d: Data) => text(d.hostname) ?? text(d.server_id) ?? 'a server';
const by = (d: Data) => (text(d.operator) ? ` by ${text(d.operator)}` : '');
const because = (d: Data) => (text(d.reason) ? `: "${text(d.reason)}"` : '');
const endpoint = (d: Data) => text(d.url_host) ?? text(d.webhook_endpoint_id) ?? 'an endpoint';
const when = (value: unknown) =>
  (text(value) ?? '')
    .replace(/\.\d{3}Z$/, 'Z')
    .replace('T', ' ')
    .replace('Z', ' UTC');

/** Each type's line, and how a digest counts several (`3 servers went stale`). */
const SUMMARIES: Record<string, { line: (d: Data) => string; many: string }> = {
  'install_code.issued': { line: (d) => `Install code ${code(d)} issued${by(d)}.`, many: 'install codes issued' },
  'install_code.activated': { line: (d) => `Install code ${code(d)} used by a machine.`, many: 'install codes used' },
  'install_code.restored': {
    line: (d) => `Install code ${code(d)} can be used again (its activation was released).`,
    many: 'install codes restored',
  },
  'install_code.consumed': { line: (d) => `Install code ${code(d)} is used up.`, many: 'install codes used up' },
  'install_code.revoked': {
    line: (d) => `Install code ${code(d)} revoked${by(d)}${because(d)}.`,
    many: 'install codes revoked',
  },
  'install_code.approved': {
    line: (d) => `Machine approved for install code ${code(d)}${by(d)}.`,
    many: 'machines approved',
  },
  'install_code.denied': {
    line: (d) => `Machine denied for install code ${code(d)}${by(d)}.`,
    many: 'machines denied',
  },
  'install_code.exhausted': { line: (d) => `Fleet code ${code(d)} has no use left.`, many: 'fleet codes used up' },
  'install_code.approval_requested': {
    line: (d) =>
      d.decided_by === 'operator'
        ? `Machine ${text(d.machine_id) ?? ''} waits for an operator's approval on fleet code ${code(d)}: approve or deny it in the console.`
        : `Machine ${text(d.machine_id) ?? ''} waits for the approval of the person who issued install code ${code(d)}.`,
    many: 'machines waiting for approval',
  },
  'install_code.expiry_warned': {
    line: (d) =>
      `Fleet code ${code(d)} expires ${when(d.expires_at)} with ${Number(d.uses) - Number(d.uses_spent)} of ${text(d.uses)} uses left: make a new one before then if machines still need it.`,
    many: 'fleet codes about to expire',
  },
  'activation.created': {
    line: (d) => `Machine ${text(d.hostname) ?? ''} (${text(d.public_ip) ?? 'unknown address'}) activated.`,
    many: 'activations',
  },
  'activation.confirmed': {
    line: (d) => `Activation ${text(d.activation_id) ?? ''} confirmed.`,
    many: 'activations confirmed',
  },
  'activation.released': {
    line: (d) => `Activation ${text(d.activation_id) ?? ''} released${by(d)}${because(d)}.`,
    many: 'activations released',
  },
  'activation.duplicate_detected': {
    line: (d) =>
      `Activation ${text(d.activation_id) ?? ''} looks like a copy of ${text(d.duplicate_of) ?? 'another machine'}.`,
    many: 'duplicate machines',
  },
  'server.registered': { line: (d) => `Server ${server(d)} registered.`, many: 'servers registered' },
  'server.agent_token_reissued': {
    line: (d) => `Server ${server(d)} was given a new agent token.`,
    many: 'agent tokens reissued',
  },
  'server.revoked': { line: (d) => `Server ${server(d)} revoked${by(d)}${because(d)}.`, many: 'servers revoked' },
  'server.went_stale': {
    line: (d) => `Server ${server(d)} stopped checking in (last seen ${when(d.last_seen_at)}).`,
    many: 'servers stopped checking in',
  },
  'server.went_dead': {
    line: (d) =>
      `Server ${server(d)} has not checked in since ${when(d.last_seen_at)}: check the machine, or revoke it if it is gone.`,
    many: 'servers counted dead',
  },
  'server.recovered': { line: (d) => `Server ${server(d)} checks in again.`, many: 'servers back' },
  'rate_limit_override.created': {
    line: (d) => `Rate-limit override set${by(d)}${because(d)}.`,
    many: 'overrides set',
  },
  'rate_limit_override.removed': {
    line: (d) => `Rate-limit override removed${by(d)}${because(d)}.`,
    many: 'overrides removed',
  },
  'webhook_endpoint.created': {
    line: (d) => `Webhook endpoint ${endpoint(d)} added${by(d)}.`,
    many: 'endpoints added',
  },
  'webhook_endpoint.paused': {
    line: (d) => `Webhook endpoint ${endpoint(d)} paused${by(d)}.`,
    many: 'endpoints paused',
  },
  'webhook_endpoint.resumed': {
    line: (d) => `Webhook endpoint ${endpoint(d)} resumed${by(d)}.`,
    many: 'endpoints resumed',
  },
  'webhook_endpoint.secret_rotated': {
    line: (d) => `Webhook endpoint ${endpoint(d)} has a new secret${by(d)}.`,
    many: 'secrets rotated',
  },
  'webhook_endpoint.removed': {
    line: (d) => `Webhook endpoint ${endpoint(d)} removed${by(d)}.`,
    many: 'endpoints removed',
  },
  'webhook_endpoint.disabled': {
    line: (d) => `Webhook endpoint ${endpoint(d)} disabled after failing for 5 days: fix it, then resume it.`,
    many: 'endpoints disabled',
  },
  'webhook_delivery.replayed': {
    line: (d) => `A webhook message was sent again${by(d)}${because(d)}.`,
    many: 'replays',
  },
  'operator_token.created': {
    line: (d) => `Operator token ${text(d.name) ?? ''} created${by(d)}.`,
    many: 'tokens created',
  },
  'operator_token.revoked': {
    line: (d) => `Operator token ${text(d.name) ?? ''} revoked${by(d)}.`,
    many: 'tokens revoked',
  },
  'operator_token.expiry_warned': {
    line: (d) =>
      `Operator token ${text(d.name) ?? ''} (${text(d.scope) ?? ''}) expires ${when(d.expires_at)}: make a new one and switch to it before then.`,
    many: 'operator tokens about to expire',
  },
  'webhook.test': { line: () => 'A test message from SlowDNS: this endpoint is set up.', many: 'test messages' },
};

/** The one line of an event; a type this version does not know is named as it is. */
export function summaryOf(event: ChatEvent): string {
  return SUMMARIES[event.type]?.line(event.data) ?? `SlowDNS event ${event.type}.`;
}

/** How a digest counts `count` events of one type (`servers stopped checking in: 24`: no plural to get wrong). */
export function countedAs(type: string, count: number): string {
  return `${SUMMARIES[type]?.many ?? type}: ${count.toLocaleString('en-US')}`;
}

/** Where in the console the event's object is: its page, else the events of that type. */
export function consolePathOf(event: ChatEvent): string {
  const id = (key: string) => text(event.data[key]);
  if (event.type.startsWith('server.') && id('server_id')) return `/admin/servers/${id('server_id')}`;
  if (event.type.startsWith('activation.') && id('activation_id')) return `/admin/activations/${id('activation_id')}`;
  if (event.type.startsWith('install_code.') && id('install_code_id')) return `/admin/codes/${id('install_code_id')}`;
  if (event.type.startsWith('webhook')) return '/admin/webhooks';
  return `/admin/events?type=${encodeURIComponent(event.type)}`;
}
