import type { ActivationListItem } from '../domain/admin-lists/activation-list.js';
import type { OperatorPrecheck } from '../domain/install-codes/operator-prechecks.js';
import type { InstallCodeListItem } from '../domain/admin-lists/install-code-list.js';
import type { ServerListItem } from '../domain/admin-lists/server-list.js';
import type { EventRow } from '../domain/events/event-trail.js';
import { actionForm, readOnlyNote } from './action-form.js';
import type { ConsoleView, ConsoleViewer } from './console-frame.js';
import { fleetCodeFacts, tagsCell } from './fleet-code-views.js';
import { badge, dataTable, eventsTable, facts, idLink, when } from './format.js';
import { html, type Html } from '../html.js';

/** What a finished action left, shown above the object (`?done=` after the redirect). */
export type DoneNotice = 'revoked' | 'released' | undefined;

function doneNote(done: DoneNotice): Html {
  if (!done) return html``;
  return html`<p class="status" data-tone="success" role="status">${done === 'released' ? 'Released.' : 'Revoked.'} The event below names you and your reason.</p>`;
}

function history(events: EventRow[]): Html {
  return html`<section class="card" aria-labelledby="events-heading">
    <h2 id="events-heading">Events, oldest first</h2>
    ${eventsTable(events, 'Events about this object, oldest first')}
  </section>`;
}

function actions(viewer: ConsoleViewer, forms: Html[]): Html {
  return html`<section class="card" aria-labelledby="actions-heading">
    <h2 id="actions-heading">Actions</h2>
    ${viewer.scope === 'write' ? (forms.length ? forms : html`<p class="muted">Nothing to do: it is already final.</p>`) : readOnlyNote(viewer)}
  </section>`;
}

/** A detail view's body: what the last action did, the object's facts, its actions, its events. */
function detailContent(
  done: DoneNotice,
  heading: string,
  pairs: Parameters<typeof facts>[0],
  actionsSection: Html,
  events: EventRow[],
): Html {
  return html`${doneNote(done)}
  <section class="card" aria-labelledby="facts-heading">
    <h2 id="facts-heading">${heading}</h2>
    ${facts(pairs)}
  </section>
  ${actionsSection}
  ${history(events)}`;
}

/** A code as its detail view shows it: as the list does, with its prechecks (`operatorPrechecksOf`, as the admin API's). */
export type CodeDetail = InstallCodeListItem & { prechecks: OperatorPrecheck[]; pendingPrechecks: number };

/**
 * Where the code's approval stands, and who decides: a code with `uses` > 1 decides each machine on its own (so it is
 * never "pending" as a whole: it says how many wait), a `uses: 1` code takes one decision.
 */
function approvalFact({ code, approval, pendingPrechecks }: CodeDetail): Html {
  if (!code.requireApproval) return badge(approval);
  const who = code.operator === null ? 'the person on the page decides' : 'an operator decides';
  if (code.uses > 1) return html`each machine on its own, ${who}: ${pendingPrechecks} waiting`;
  return html`${badge(approval)} ${who}`;
}

/** The machines that prechecked a code issued with approval, and the person's decision on each (none for one issued without). */
function codePrechecksSection(code: CodeDetail['code'], prechecks: OperatorPrecheck[]): Html {
  if (!code.requireApproval) return html``;
  const rows = prechecks.map((p) => [
    when(p.precheckedAt),
    html`<span class="id">${p.machineId}</span>`,
    p.ip ? html`<code>${p.ip}</code>` : html`<span class="muted">unknown</span>`,
    html`<code>${p.installerVersion}</code>`,
    badge(p.approval),
  ]);
  return html`<section class="card" aria-labelledby="prechecks-heading">
    <h2 id="prechecks-heading">Prechecks, newest first</h2>
    ${dataTable(
      'Machines that prechecked this code, newest first, with the decision on each',
      ['When', 'Machine', 'Address', 'Installer', 'Decision'],
      rows,
      'No machine has prechecked it yet.',
    )}
  </section>`;
}

export function codeDetailView(
  viewer: ConsoleViewer,
  item: CodeDetail,
  events: EventRow[],
  done: DoneNotice,
  /** Sections of a code for a fleet (its activations, machines waiting for approval): fleet-code-views.ts. */
  fleetSections: Html = html``,
): ConsoleView {
  const { code, status, activation, prechecks } = item;
  const revocable = code.status === 'issued' || code.status === 'activated';
  return {
    title: code.id,
    heading: `Install code ${code.hint}`,
    section: 'codes',
    content: detailContent(
      done,
      'The code',
      [
        ['Id', html`<span class="id">${code.id}</span>`],
        ['Hint', html`<code>${code.hint}</code>`],
        ['Status', badge(status)],
        ['Approval', approvalFact(item)],
        ['Issued', when(code.issuedAt)],
        ['Expires', when(code.expiresAt)],
        ['Revoked', code.revokedAt ? when(code.revokedAt) : null],
        [
          'Latest activation',
          activation ? html`${idLink(activation.id)} on ${activation.hostname} (${activation.status})` : null,
        ],
        ...fleetCodeFacts(item),
      ],
      html`${codePrechecksSection(code, prechecks)}${actions(
        viewer,
        revocable
          ? [
              actionForm(
                viewer,
                {
                  path: `/admin/codes/${code.id}/revoke`,
                  summary: 'Revoke this code…',
                  consequence: `Revoke ${code.hint}: no machine can use it again, and an install with it that has not been confirmed is stopped. This cannot be undone.`,
                  button: `Revoke ${code.hint}`,
                },
                'revoke',
              ),
            ]
          : [],
      )}${fleetSections}`,
      events,
    ),
  };
}

export function activationDetailView(
  viewer: ConsoleViewer,
  { activation: a, server }: ActivationListItem,
  events: EventRow[],
  done: DoneNotice,
): ConsoleView {
  return {
    title: a.id,
    heading: `Activation on ${a.hostname}`,
    section: 'activations',
    content: detailContent(
      done,
      'The activation',
      [
        ['Id', html`<span class="id">${a.id}</span>`],
        ['Status', badge(a.status)],
        ['Install code', idLink(a.installCodeId)],
        ['Host', a.hostname],
        ['Public IP', a.publicIp],
        ['Machine id', html`<span class="id">${a.machineId}</span>`],
        ['SSH key', html`<span class="fingerprint">${a.sshFingerprint}</span>`],
        [
          'Key proven',
          a.sshKeyProven ? 'yes: the machine signed activate with this host key' : 'no: the fingerprint is a claim',
        ],
        ['Installer', `${a.installerVersion} (ref ${a.requestedRef})`],
        ['Created', when(a.createdAt)],
        ['Confirmed', a.confirmedAt ? when(a.confirmedAt) : null],
        ['Released', a.releasedAt ? when(a.releasedAt) : null],
        ['Duplicate of', a.duplicateOf ? idLink(a.duplicateOf) : null],
        ['Tags', tagsCell(a.tags)],
        ['Server', server ? html`${idLink(server.id)} (${server.status})` : null],
      ],
      actions(
        viewer,
        a.status === 'activated'
          ? [
              actionForm(
                viewer,
                {
                  path: `/admin/activations/${a.id}/release`,
                  summary: 'Release this activation…',
                  consequence: `Release the activation on ${a.hostname} (${a.publicIp}): its install stops, a server registered for it is revoked, and its code can be used again if it has not expired.`,
                  button: `Release ${a.id}`,
                },
                'release',
              ),
            ]
          : a.status === 'confirmed' && server?.status === 'active'
            ? [
                html`<p class="fine-print">A confirmed activation is not released: revoke its server (${idLink(server.id)}) instead.</p>`,
              ]
            : [],
      ),
      events,
    ),
  };
}

export function serverDetailView(
  viewer: ConsoleViewer,
  { server: s, health }: ServerListItem,
  events: EventRow[],
  done: DoneNotice,
): ConsoleView {
  return {
    title: s.id,
    heading: `Server ${s.hostname}`,
    section: 'servers',
    content: detailContent(
      done,
      'The server',
      [
        ['Id', html`<span class="id">${s.id}</span>`],
        ['Health', badge(health)],
        ['Activation', idLink(s.activationId)],
        ['Host', s.hostname],
        ['Public IP', s.publicIp],
        ['Machine id', html`<span class="id">${s.machineId}</span>`],
        ['SSH key', html`<span class="fingerprint">${s.sshFingerprint}</span>`],
        ['Agent', s.agentVersion],
        ['Tags', tagsCell(s.tags)],
        ['Registered', when(s.registeredAt)],
        ['Last check-in', s.lastSeenAt ? when(s.lastSeenAt) : null],
        ['Revoked', s.revokedAt ? when(s.revokedAt) : null],
      ],
      actions(
        viewer,
        s.status === 'active'
          ? [
              actionForm(
                viewer,
                {
                  path: `/admin/servers/${s.id}/revoke`,
                  summary: 'Revoke this server…',
                  consequence: `Revoke ${s.hostname} (${s.publicIp}): its agent token stops working at its next check-in. This cannot be undone.`,
                  button: `Revoke ${s.hostname}`,
                },
                'revoke',
              ),
            ]
          : [],
      ),
      events,
    ),
  };
}
