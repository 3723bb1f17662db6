/** The parts of the OpenAPI document the shell shows. */
interface ShellDocument {
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  paths?: Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The markdown the introduction uses inline: `code` and **bold**; the rest shows as written. */
const inlineMarkdown = (text: string) =>
  escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

/** The introduction up to its first heading (the tables after it need Scalar), one line per list item. */
function introduction(description: string): string {
  const blocks: string[] = [];
  for (const block of description.trim().split(/\n\s*\n/)) {
    if (block.trimStart().startsWith('#')) break;
    const list = /^\s*(\d+\.|-)\s/m.test(block);
    blocks.push(list ? block.split('\n').map((line) => inlineMarkdown(line.trim())).join('<br />') : inlineMarkdown(block.replace(/\s+/g, ' ').trim()));
  }
  return blocks.join('<br /><br />');
}

/**
 * What /docs shows before Scalar's bundle has run, and without JavaScript: the API's title, version and
 * introduction, and its operations, rendered on the server from the document. It paints with the page
 * (the bundle is 3.5 MB of JavaScript and takes a second or more to run); Scalar's mount replaces it.
 * Laid out like Scalar's first screen (sidebar, then the introduction in a narrow column), so that
 * the change is small.
 */
export function referenceShell(document: ShellDocument): { markup: string; style: string } {
  const operations: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Record<string, { summary?: string } | undefined>)[method];
      if (operation) operations.push(`<li><span>${method.toUpperCase()}</span> ${escapeHtml(operation.summary ?? path)}</li>`);
    }
  }
  const servers = (document.servers ?? []).map(
    (server) => `<p><code>${escapeHtml(server.url)}</code>${server.description ? `<br />${escapeHtml(server.description)}` : ''}</p>`,
  );
  const { title, version, description = '' } = document.info;
  const markup =
    `<div class="reference-shell"><nav><ul>${operations.join('')}</ul></nav>` +
    `<main><p class="version">v${escapeHtml(version)}</p><h1>${escapeHtml(title)}</h1>` +
    `<div class="columns"><div class="introduction">${introduction(description)}</div>` +
    `<aside><h2>Server</h2>${servers.join('')}</aside></div></main></div>`;
  return { markup, style: SHELL_STYLE };
}

const SHELL_STYLE = `
      body { margin: 0; }
      .reference-shell { display: flex; font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1b1b1b; line-height: 1.6; }
      .reference-shell nav { width: 280px; flex: none; box-sizing: border-box; height: 100vh; overflow: hidden; padding: 56px 12px 0; border-right: 1px solid rgba(0, 0, 0, 0.1); font-size: 14px; }
      .reference-shell ul { list-style: none; margin: 0; padding: 0; }
      .reference-shell li { padding: 3px 8px; color: #555; }
      .reference-shell li span { font-size: 10px; font-weight: 600; color: #999; }
      .reference-shell main { padding: 88px 60px 0; }
      .reference-shell .version { margin: 0 0 8px; font-size: 13px; color: #777; }
      .reference-shell h1 { margin: 0 0 40px; font-size: 24px; }
      .reference-shell .columns { display: flex; gap: 48px; align-items: flex-start; }
      .reference-shell .introduction { width: 440px; flex: none; font-size: 16px; }
      .reference-shell aside { width: 435px; border: 1px solid #dfdfdf; border-radius: 8px; overflow: hidden; font-size: 14px; }
      .reference-shell aside h2 { margin: 0; padding: 6px 12px; font-size: 14px; font-weight: 500; background: #f6f6f6; border-bottom: 1px solid #dfdfdf; }
      .reference-shell aside p { margin: 0; padding: 8px 12px; color: #777; }
      .reference-shell code { font-size: 13px; background: #f6f6f6; border-radius: 3px; padding: 0 2px; }`;
