import { html, trusted, type Html } from '../html.js';

/** The parts of the OpenAPI document the shell shows. */
interface ShellDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string }[];
  paths?: Record<string, unknown>;
  components?: { securitySchemes?: Record<string, object> };
}

type SecurityScheme = { type?: string; scheme?: string; in?: string; name?: string };

interface ShellOperation {
  summary?: string;
  tags?: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The markdown the introduction uses inline: `code` and **bold**, put in after escaping; the rest shows as written. */
const inlineMarkdown = (text: string) =>
  trusted(
    html`${text}`.text.replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>'),
  );

const LIST_ITEM = /^\s*(\d+\.|-)\s+/;

/** The introduction up to its first heading (the tables after it need Scalar): paragraphs and lists. */
function introduction(description: string): Html[] {
  const blocks: Html[] = [];
  for (const block of description.trim().split(/\n\s*\n/)) {
    if (block.trimStart().startsWith('#')) break;
    const lines = block.split('\n');
    if (LIST_ITEM.test(lines[0]!)) {
      const items = lines.map((line) => html`<li>${inlineMarkdown(line.replace(LIST_ITEM, '').trim())}</li>`);
      blocks.push(/^\s*\d/.test(lines[0]!) ? html`<ol>${items}</ol>` : html`<ul>${items}</ul>`);
    } else {
      blocks.push(html`<p>${inlineMarkdown(block.replace(/\s+/g, ' ').trim())}</p>`);
    }
  }
  return blocks;
}

/** Each tag's operations in document order (untagged ones under `default`, as Scalar files them). */
function operationsByTag(document: ShellDocument): Map<string, Html[]> {
  const byTag = new Map<string, Html[]>((document.tags ?? []).map((tag) => [tag.name, []]));
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Record<string, ShellOperation | undefined>)[method];
      if (!operation) continue;
      const entry = html`<li><span>${method.toUpperCase()}</span> ${operation.summary ?? path}</li>`;
      for (const tag of operation.tags?.length ? operation.tags : ['default']) {
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag)!.push(entry);
      }
    }
  }
  return byTag;
}

const schemeLabel = ({ type, scheme, in: where, name }: SecurityScheme) =>
  type === 'http'
    ? `HTTP ${scheme ?? ''}`.trim()
    : type === 'apiKey'
      ? `API key, ${where ?? ''} ${name ?? ''}`.trim()
      : (type ?? '');

/**
 * What /docs shows before Scalar's bundle has run, and without JavaScript: the API's title, version,
 * introduction, server and authentication schemes, and its operations by tag, rendered on the server
 * from the document. It paints with the page (the bundle is 3.5 MB of JavaScript and takes a second
 * or more to run), and lies over Scalar's mount point until Scalar shows its content. It is laid out as Scalar's first screen is, with
 * Scalar's font, sizes and colours (sidebar with the tags collapsed, badges, title, introduction,
 * server box; the operations below the fold, where Scalar has its tag sections), so that what the
 * reader sees hardly changes when Scalar takes over.
 */
export function referenceShell(document: ShellDocument): { markup: string; style: string } {
  const byTag = operationsByTag(document);
  const sidebar = ['Introduction', ...byTag.keys(), 'Models'].map((entry) => html`<li>${entry}</li>`);
  const tagSections = [...byTag]
    .filter(([, operations]) => operations.length > 0)
    .map(([tag, operations]) => html`<h2>${tag}</h2><ul>${operations}</ul>`);
  const servers = (document.servers ?? []).map(
    (server) =>
      html`<p><code>${server.url}</code></p>${server.description ? html`<p class="note">${server.description}</p>` : ''}`,
  );
  const schemes = Object.entries(document.components?.securitySchemes ?? {}).map(
    ([name, scheme]) => html`<p><code>${name}</code> <span class="note">${schemeLabel(scheme)}</span></p>`,
  );
  const { title, version, description = '' } = document.info;
  const markup =
    html`<div class="reference-shell"><nav><div class="search" aria-hidden="true"></div><ul>${sidebar}</ul></nav>\
<main><p class="badges"><span>v${version}</span><span>OAS ${document.openapi}</span></p>\
<h1>${title}</h1>\
<div class="columns"><div class="introduction"><p class="download"><a href="/openapi.json">Download OpenAPI Document</a></p>${introduction(description)}</div>\
<aside><section><h2>Server</h2>${servers}</section>\
${schemes.length ? html`<section><h2>Authentication</h2>${schemes}</section>` : ''}\
</aside></div><div class="operations">${tagSections}</div></main></div>`.text;
  return { markup, style: SHELL_STYLE };
}

// Scalar's own measures in its light theme (1.46): a 288 px sidebar, a 447 px text column at 60 px from
// it and a 447 px column of boxes 48 px further, its font stack (Inter when installed, else the system's
// sans-serif, as Scalar shows without its web fonts) and its greys.
const SHELL_STYLE = `
      body { margin: 0; }
      .reference-shell { position: absolute; top: 0; left: 0; z-index: 100; width: 100%; min-height: 100vh; background: #fff; display: flex; font-family: "Inter", -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Oxygen, Ubuntu, Cantarell, "Open Sans", "Helvetica Neue", sans-serif; color: #1b1b1b; font-size: 16px; line-height: 26px; }
      .reference-shell nav { width: 288px; flex: none; box-sizing: border-box; height: 100vh; position: sticky; top: 0; overflow: hidden; padding: 12px; border-right: 1px solid #dfdfdf; font-size: 14px; line-height: 16px; }
      .reference-shell nav .search { height: 32px; box-sizing: border-box; border: 1px solid #dfdfdf; border-radius: 6px; background: #fafafa; margin-bottom: 12px; }
      .reference-shell ul, .reference-shell ol { margin: 0; padding: 0; }
      .reference-shell nav li { list-style: none; padding: 8px; margin-bottom: 1px; color: #757575; }
      .reference-shell main { flex: none; width: 942px; padding: 90px 0 0 60px; }
      .reference-shell .badges { display: flex; gap: 6px; margin: 0 0 3px; font-size: 13px; line-height: 19px; color: #757575; }
      .reference-shell .badges span { border: 1px solid #dfdfdf; border-radius: 12px; background: #f6f6f6; padding: 0 6px; }
      .reference-shell h1 { margin: 0 0 11px; font-size: 24px; font-weight: 600; line-height: 27px; }
      .reference-shell .columns { display: flex; gap: 48px; align-items: flex-start; }
      .reference-shell .introduction { width: 447px; flex: none; }
      .reference-shell .introduction p { margin: 0 0 16px; }
      .reference-shell .introduction .download { margin-bottom: 24px; }
      .reference-shell .introduction a { color: inherit; }
      .reference-shell .introduction ol, .reference-shell .introduction ul { margin: 0 0 16px; padding-left: 32px; }
      .reference-shell .introduction li { margin-bottom: 4px; padding-left: 4px; }
      .reference-shell aside { width: 447px; flex: none; font-size: 14px; line-height: 21px; }
      .reference-shell aside section { border: 1px solid #dfdfdf; border-radius: 12px; overflow: hidden; margin-bottom: 12px; }
      .reference-shell aside h2 { margin: 0; padding: 5px 12px; font-size: 14px; font-weight: 500; background: #f6f6f6; border-bottom: 1px solid #dfdfdf; }
      .reference-shell aside p { margin: 0; padding: 6px 12px; }
      .reference-shell .note { color: #8e8e8e; }
      .reference-shell .operations { padding-top: 48px; width: 447px; }
      .reference-shell .operations h2 { font-size: 20px; font-weight: 600; margin: 24px 0 8px; }
      .reference-shell .operations ul { list-style: none; }
      .reference-shell .operations li span { display: inline-block; width: 48px; font-size: 12px; font-weight: 600; color: #757575; }
      .reference-shell code { font-family: ui-monospace, Menlo, Monaco, Consolas, "Liberation Mono", monospace; font-size: 13px; }`;
