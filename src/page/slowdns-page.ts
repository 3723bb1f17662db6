/**
 * The /slowdns page: server-rendered markup for every state; `app.js` (served by this service) only
 * fills it in and switches states. Nothing here comes from the request, so nothing needs escaping.
 */
export interface SlowdnsPageOptions {
  scriptUrl: string;
  styleUrl: string;
  installCodeTtlSeconds: number;
}

/**
 * Only this service's own script and stylesheet: no inline script or style, no eval. `img-src data:`
 * is for the empty `data:` favicon, which keeps the browser from asking for /favicon.ico.
 */
export const SLOWDNS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function lifetimeInWords(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

export function renderSlowdnsPage({ scriptUrl, styleUrl, installCodeTtlSeconds }: SlowdnsPageOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>SlowDNS · Get an install code</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${styleUrl}">
<script src="${scriptUrl}" defer></script>
</head>
<body>
<main class="page">
  <header class="masthead">
    <p class="product">SlowDNS</p>
    <h1>Get an install code</h1>
    <p class="lead">The SlowDNS installer on your server asks for an install code. Get one here: it works
    for one installation and expires ${lifetimeInWords(installCodeTtlSeconds)} after you get it.</p>
  </header>

  <section class="card" aria-labelledby="code-heading">
    <h2 id="code-heading" class="visually-hidden">Install code</h2>
    <button type="button" id="issue-button" class="button primary">Get an install code</button>
    <p id="status" class="status" role="status" aria-live="polite"></p>
    <noscript><p class="status" data-tone="error">This page needs JavaScript to request an install code.</p></noscript>

    <div id="result" class="result" role="group" aria-labelledby="code-label" hidden>
      <p id="code-label" class="label">Your install code</p>
      <div class="code-row">
        <code id="install-code" class="code"></code>
        <button type="button" id="copy-button" class="button secondary">Copy code</button>
      </div>
      <dl class="facts">
        <div><dt>Expires in</dt><dd><span id="countdown" role="timer" aria-live="off"></span></dd></div>
        <div><dt>Hint</dt><dd><span id="code-hint" class="hint"></span></dd></div>
      </dl>
      <p class="fine-print">Keep this page open until the installer has accepted the code: it is shown
      only once. The hint names the code without revealing it.</p>
    </div>
  </section>

  <section class="next" aria-labelledby="next-heading">
    <h2 id="next-heading">What to do next</h2>
    <ol>
      <li>On your server, run the SlowDNS installer.</li>
      <li>When it asks for an install code, enter this one (or paste it).</li>
      <li>Check the hostname and public IP it shows, and let it finish.</li>
    </ol>
  </section>
</main>
</body>
</html>
`;
}
