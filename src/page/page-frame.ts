import { html, type Html } from '../html.js';

/**
 * What every HTML page of this service under /slowdns shares: the head (charset, viewport, light and
 * dark schemes, the empty favicon, the stylesheet, deferred scripts) and the masthead.
 */
export interface PageFrame {
  /** The title after "SlowDNS · ". */
  title: string;
  styleUrl: string;
  /** Loaded with `defer`, in this order. */
  scriptUrls?: string[];
  heading: string;
  /** The masthead's lead paragraph, if any. */
  lead?: Html;
  /** What follows the masthead in `<main>` (indented by two spaces). */
  content: Html;
}

export function renderPage({ title, styleUrl, scriptUrls = [], heading, lead, content }: PageFrame): string {
  const scripts = scriptUrls.map((url) => html`<script src="${url}" defer></script>\n`);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>SlowDNS · ${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${styleUrl}">
${scripts}</head>
<body>
<main class="page">
  <header class="masthead">
    <p class="product">SlowDNS</p>
    <h1>${heading}</h1>${lead ? html`\n    <p class="lead">${lead}</p>` : ''}
  </header>

${content}
</main>
</body>
</html>
`.text;
}
