import { html, type Html } from '../html.js';

/**
 * Only this service's own script and stylesheets, forms posting only to this service, no frame, no
 * other origin: as strict as the /slowdns page's policy, forms allowed back to 'self' (the console's
 * sign-in and actions are plain HTML forms). The charts are inline `<svg>` markup styled by class. With
 * sign-in by an identity provider, forms may also lead to its origin (sign-out ends its session there too).
 */
export function consoleCsp(formOrigins: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    ["form-action 'self'", ...formOrigins].join(' '),
    "frame-ancestors 'none'",
  ].join('; ');
}

/** What every console view links to (versioned URLs: see src/page/page-assets.ts). */
export interface ConsoleAssets {
  pageStyleUrl: string;
  styleUrl: string;
  scriptUrl: string;
}

/** The signed-in operator, as the masthead shows them; undefined on the sign-in and wait pages. */
export interface ConsoleViewer {
  operator: string;
  scope: 'read' | 'write';
  /** A `root` operator (DESIGN §26): also manages operator tokens and console sessions. */
  root?: boolean;
  /** The identity provider that signed the operator in, if one did. */
  issuer?: string;
  /** The per-session token every form of the session carries. */
  formToken: string;
}

export type ConsoleSection = 'overview' | 'codes' | 'activations' | 'servers' | 'events' | 'webhooks' | 'operators';

const SECTIONS: readonly [ConsoleSection, string, string][] = [
  ['overview', 'Overview', '/admin'],
  ['codes', 'Codes', '/admin/codes'],
  ['activations', 'Activations', '/admin/activations'],
  ['servers', 'Servers', '/admin/servers'],
  ['events', 'Events', '/admin/events'],
  ['webhooks', 'Webhooks', '/admin/webhooks'],
];

/** Shown to a `root` operator only: operator tokens and console sessions. */
const OPERATORS_SECTION: [ConsoleSection, string, string] = ['operators', 'Operators', '/admin/operators'];

export interface ConsoleView {
  /** The title after "SlowDNS console · ". */
  title: string;
  heading: string;
  /** The section the navigation marks as current. */
  section?: ConsoleSection;
  content: Html;
}

/** The hidden field every form of a signed-in session carries. */
export function formTokenField(viewer: ConsoleViewer): Html {
  return html`<input type="hidden" name="form_token" value="${viewer.formToken}">`;
}

function scopeLabel(viewer: ConsoleViewer): string {
  if (viewer.root) return 'root';
  return viewer.scope === 'write' ? 'read and write' : 'read only';
}

function masthead(viewer: ConsoleViewer | undefined, section: ConsoleSection | undefined): Html {
  if (!viewer) return html``;
  const sections = viewer.root ? [...SECTIONS, OPERATORS_SECTION] : SECTIONS;
  const links = sections.map(
    ([name, label, href]) =>
      html`<li><a href="${href}"${name === section ? html` aria-current="page"` : ''}>${label}</a></li>`,
  );
  return html`
    <nav class="console-nav" aria-label="Console">
      <ul>${links}</ul>
    </nav>
    <div class="console-who">
      <p>Signed in as <strong>${viewer.operator}</strong>${viewer.issuer ? html` <span class="fine-print">via ${new URL(viewer.issuer).host}</span>` : ''} <span class="scope" data-scope="${viewer.root ? 'root' : viewer.scope}">${scopeLabel(viewer)}</span></p>
      <form method="post" action="/admin/sign-out">${formTokenField(viewer)}<button type="submit" class="button quiet">Sign out</button></form>
    </div>`;
}

export function renderConsoleView(
  assets: ConsoleAssets,
  viewer: ConsoleViewer | undefined,
  { title, heading, section, content }: ConsoleView,
): string {
  return `<!doctype html>
${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>SlowDNS console · ${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.pageStyleUrl}">
<link rel="stylesheet" href="${assets.styleUrl}">
<script src="${assets.scriptUrl}" defer></script>
</head>
<body>
<a class="skip-link" href="#content">Skip to content</a>
<header class="console-header">
  <div class="console-bar">
    <p class="product"><a href="/admin">SlowDNS console</a></p>${masthead(viewer, section)}
  </div>
</header>
<main id="content" class="page console-page" tabindex="-1">
  <h1>${heading}</h1>
${content}
</main>
</body>
</html>`}
`;
}
