import type { ActivationRow } from '../domain/activations/activation-rows.js';
import type { InstallCodeListItem } from '../domain/admin-lists/install-code-list.js';
import type { OperatorPrecheck } from '../domain/install-codes/operator-prechecks.js';
import type { StoredTrust } from '../db/schema.js';
import { html, type Html } from '../html.js';
import { formTokenField, type ConsoleView, type ConsoleViewer } from './console-frame.js';
import { badge, dataTable, idLink, when } from './format.js';

/** Codes an operator issues for a fleet (DESIGN §22) in the console: the create form, the code shown once, uses, tags, prechecks. */

/** The lifetimes the create form offers; the service's default (INSTALL_CODE_TTL_SECONDS) when none is chosen. */
const CONSOLE_CODE_TTLS: readonly [number, string][] = [
  [3600, '1 hour'],
  [86_400, '1 day'],
  [604_800, '7 days'],
  [2_592_000, '30 days'],
];

/** What the create form held when it is shown again after a refusal (never the code). */
export type CreateFormValues = Partial<
  Record<'uses' | 'ttl_seconds' | 'description' | 'tags' | 'allowed_cidrs' | 'hostname_pattern' | 'reason', string>
> & { require_approval?: boolean };

/** Tags as `key=value` chips; a dash for none (a page code and what it made). */
export function tagsCell(tags: Record<string, string>): Html {
  const pairs = Object.entries(tags);
  if (pairs.length === 0) return html`<span class="muted">—</span>`;
  return html`<span class="tags">${pairs.map(([k, v]) => html`<code class="tag">${k}=${v}</code> `)}</span>`;
}

/** A code's uses as the lists show them: spent of all, and how many are held by unfinished installs. */
export function usesCell({ code, usesHeld }: InstallCodeListItem): Html {
  return html`<span class="uses">${code.usesSpent} / ${code.uses}${usesHeld ? html` <span class="muted">(${usesHeld} held)</span>` : ''}</span>`;
}

/** The facts a fleet code adds to its detail view; none for a page code. */
export function fleetCodeFacts(item: InstallCodeListItem): [string, Html | string | null][] {
  const { code } = item;
  if (code.operator === null) return [['Tags', tagsCell(code.tags)]];
  return [
    ['Issued by', code.operator],
    ['Description', code.description],
    [
      'Uses',
      html`${code.uses}: ${code.usesSpent} spent, ${item.usesHeld} held, ${code.uses - code.usesSpent - item.usesHeld} free`,
    ],
    ['Last used', code.lastUsedAt ? when(code.lastUsedAt) : null],
    ['Tags', tagsCell(code.tags)],
    ['Networks', code.allowedCidrs?.length ? html`${code.allowedCidrs.map((n) => html`<code>${n}</code> `)}` : null],
    ['Host names', code.hostnamePattern ? html`<code>${code.hostnamePattern}</code>` : null],
    ['Machine proof', code.requireMachineProof ? 'each machine proves its SSH host key' : 'as the service requires'],
    ['Trust', code.trust ? trustCell(code.trust) : null],
  ];
}

/** A code's `trust` block (DESIGN §25), as the operator wrote it: the machines it admits without a secret. */
function trustCell(trust: StoredTrust): Html {
  const rules = [
    ...(trust.subject_pattern === undefined ? [] : [['sub', trust.subject_pattern] as const]),
    ...Object.entries(trust.claims ?? {}),
  ];
  return html`<div class="trust">
    <p>Tokens from <code>${trust.issuer}</code> for ${trust.audiences.map((a) => html`<code>${a}</code> `)}(at most ${trust.max_lifetime_seconds} s long), ${trust.jwks ? 'verified with the keys written on the code' : "verified with the issuer's published keys"}.</p>
    <ul>${rules.map(([claim, pattern]) => html`<li><code>${claim}</code> matches <code>${pattern}</code></li>`)}</ul>
    ${Object.keys(trust.tags_from_claims ?? {}).length ? html`<p>Tags from claims: ${Object.entries(trust.tags_from_claims ?? {}).map(([tag, claim]) => html`<code>${tag}</code> ← <code>${claim}</code> `)}</p>` : ''}
  </div>`;
}

/** The activations a code with several uses made, newest first (at most 100, as the admin API's show answers). */
export function codeActivationsSection(activations: ActivationRow[]): Html {
  const rows = activations.map((a) => [
    idLink(a.id),
    html`${a.hostname}`,
    html`${a.publicIp}`,
    badge(a.status),
    when(a.createdAt),
  ]);
  return html`<section class="card" aria-labelledby="code-activations-heading">
    <h2 id="code-activations-heading">Its activations, newest first</h2>
    ${dataTable('Activations of this code, newest first', ['Id', 'Host', 'Public IP', 'Status', 'Created'], rows, 'No machine has used it yet.')}
  </section>`;
}

function decisionForm(
  viewer: ConsoleViewer,
  path: string,
  id: string,
  decision: 'approve' | 'deny',
  label: string,
): Html {
  return html`<form method="post" action="${path}/${decision}" class="inline-form">
      <label for="reason-${decision}-${id}" class="visually-hidden">Reason to ${decision} ${id} (optional)</label>
      <input id="reason-${decision}-${id}" name="reason" type="text" maxlength="200" autocomplete="off" placeholder="Reason (optional)">
      ${formTokenField(viewer)}
      <button type="submit" class="button ${decision === 'deny' ? 'primary' : 'secondary'}">${label}</button>
    </form>`;
}

/**
 * The machines waiting for an operator's decision on a code issued with approval (its show's pending
 * prechecks): each with approve and deny forms for a write-scope session. Deny refuses that machine, not the code.
 * Deny is the primary button, the safe one (issue 59): it grants nothing, and a machine denied by mistake
 * prechecks again and waits anew (or, for a `uses: 1` code, which a denial revokes, is given a new code), where
 * one approved by mistake takes a use and the decision cannot be taken back (409 `approval_decided`). Neither
 * is red: denying is not the dangerous act here.
 */
export function pendingPrechecksSection(
  viewer: ConsoleViewer,
  codeId: string,
  prechecks: OperatorPrecheck[],
  waiting: number,
): Html {
  const rows = prechecks.map((p) => {
    const path = `/admin/codes/${encodeURIComponent(codeId)}/prechecks/${encodeURIComponent(p.id)}`;
    return [
      html`<span class="id">${p.id}</span>`,
      html`<span class="id">${p.machineId}</span>`,
      html`<span class="fingerprint">${p.sshFingerprint}</span>`,
      html`${p.ip ?? '—'}`,
      when(p.precheckedAt),
      viewer.scope === 'write'
        ? html`${decisionForm(viewer, path, p.id, 'approve', 'Approve')}${decisionForm(viewer, path, p.id, 'deny', 'Deny')}`
        : html`<span class="muted">write scope decides</span>`,
    ];
  });
  return html`<section class="card" aria-labelledby="pending-heading">
    <h2 id="pending-heading">Machines waiting for approval</h2>
    <p class="fine-print" data-part="waiting-count">${waiting === 1 ? '1 machine waits' : `${waiting} machines wait`}${waiting > prechecks.length ? html`: the ${prechecks.length} newest below, the others once these are decided` : ''}. No hostname yet: a machine gives it at activate, after the decision. Compare each machine id, SSH key and address (where it prechecked from) with the server you are installing. Approve lets that machine take one use; deny refuses that machine only, and the code stays usable for others.</p>
    ${dataTable('Prechecks waiting for a decision, newest first', ['Precheck', 'Machine id', 'SSH key', 'Address', 'When', 'Decision'], rows, 'No machine is waiting.')}
  </section>`;
}

function field(id: string, label: string, control: Html, hint?: string): Html {
  return html`<div class="field"><label for="${id}">${label}</label>${hint ? html`<p class="fine-print" id="${id}-hint">${hint}</p>` : ''}${control}</div>`;
}

/**
 * The create form (write scope): each submission carries a token of its own, used once, so a form sent
 * twice (a reload, a double click, the back button) makes one code at most.
 */
export function createCodeFormView(
  viewer: ConsoleViewer,
  createToken: string,
  problem?: string,
  values: CreateFormValues = {},
): ConsoleView {
  const ttl = values.ttl_seconds ?? '';
  return {
    title: 'New install code',
    heading: 'New install code for a fleet',
    section: 'codes',
    content: html`${problem ? html`<p class="status" data-tone="error" role="alert">${problem}</p>` : ''}
  <section class="card" aria-labelledby="create-heading">
    <h2 id="create-heading">The code</h2>
    <p class="fine-print">For servers nobody types at (cloud-init, Ansible, a golden image). Cloud-init user-data is readable through the metadata service: bind a reusable code to your networks or to approval.</p>
    <form method="post" action="/admin/codes" class="stack">
      ${field('uses', 'Uses (machines it may enrol, 1 to 10000)', html`<input id="uses" name="uses" type="number" min="1" max="10000" required value="${values.uses ?? '1'}">`)}
      ${field('ttl_seconds', 'Lifetime', html`<select id="ttl_seconds" name="ttl_seconds"><option value="">the service's default</option>${CONSOLE_CODE_TTLS.map(([s, l]) => html`<option value="${String(s)}"${String(s) === ttl ? html` selected` : ''}>${l}</option>`)}</select>`)}
      ${field('description', 'Description (optional)', html`<input id="description" name="description" type="text" maxlength="200" autocomplete="off" value="${values.description ?? ''}">`)}
      ${field('tags', 'Tags (optional), one key=value per line', html`<textarea id="tags" name="tags" rows="3" aria-describedby="tags-hint">${values.tags ?? ''}</textarea>`, 'Copied onto each activation and server: env=prod')}
      ${field('allowed_cidrs', 'Networks (optional), one per line', html`<textarea id="allowed_cidrs" name="allowed_cidrs" rows="2" aria-describedby="allowed_cidrs-hint">${values.allowed_cidrs ?? ''}</textarea>`, 'Only machines the service sees inside one: 203.0.113.0/24')}
      ${field('hostname_pattern', 'Host names (optional)', html`<input id="hostname_pattern" name="hostname_pattern" type="text" maxlength="253" autocomplete="off" placeholder="*.prod.example.com" value="${values.hostname_pattern ?? ''}">`)}
      <div class="field"><label><input name="require_approval" type="checkbox" value="on"${values.require_approval ? html` checked` : ''}> Each machine waits until an operator approves it</label></div>
      ${field('reason', 'Reason (optional, kept in the event with your name)', html`<input id="reason" name="reason" type="text" maxlength="200" autocomplete="off" value="${values.reason ?? ''}">`)}
      ${formTokenField(viewer)}
      <input type="hidden" name="create_token" value="${createToken}">
      <button type="submit" class="button">Create the code</button>
    </form>
  </section>`,
  };
}

/** The new code, shown this once, with what to know before handing it out. */
export function createdCodeView(created: {
  id: string;
  /** Null for a code with `trust` (never made by this form). */
  code: string | null;
  hint: string;
  uses: number;
  expiresAt: Date;
  warnings: string[];
}): ConsoleView {
  return {
    title: 'Install code created',
    heading: `Install code ${created.hint}`,
    section: 'codes',
    content: html`<p class="status" data-tone="success" role="status">Created. Copy the code now: it is not shown again (the service keeps only its hash).</p>
  <section class="card" aria-labelledby="created-heading">
    <h2 id="created-heading">The code</h2>
    <p>${created.code === null ? 'No secret: machines enroll with their identity token.' : html`<code class="secret" id="created-code">${created.code}</code>`}</p>
    <p>${created.uses} ${created.uses === 1 ? 'use' : 'uses'}, until ${when(created.expiresAt)}. ${idLink(created.id)}</p>
    ${created.warnings.map((w) => html`<p class="status" data-tone="warning" role="note">${w}</p>`)}
  </section>`,
  };
}

/** A create form sent again: its token was used, so nothing new was made. */
export function createFormUsedView(): ConsoleView {
  return {
    title: 'Already submitted',
    heading: 'This form was already submitted',
    section: 'codes',
    content: html`<p class="status" role="status">Nothing new was made: this form made its code when it was first sent, and the code was shown then. <a href="/admin/codes">The codes</a>, or <a href="/admin/codes/new">a new form</a>.</p>`,
  };
}

/** What an operator's decision on a waiting machine did (`?decided=` after the redirect). */
export function decidedNote(decided: string | undefined): Html {
  if (decided !== 'approve' && decided !== 'deny') return html``;
  return html`<p class="status" data-tone="success" role="status">${decided === 'approve' ? 'Approved: that machine may take one use.' : 'Denied: that machine is refused; the code stays usable for others.'} The event below names you and your reason.</p>`;
}
