/** The /slowdns page. A plain placeholder until the page of its own issue replaces it. */
export function renderSlowdnsPage(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>SlowDNS install code</title></head>
<body><main><h1>SlowDNS install code</h1><p>Your browser session is ready. Request an install code with <code>POST /api/v2/slowdns/code/issue</code>.</p></main></body>
</html>`;
}
