/**
 * The one way this service writes HTML: the /slowdns page, the operator console and the reference's shell.
 * What goes into a page may have come from installers, agents, operators or the document (host names,
 * reports, reasons, summaries): every value put into `html` is escaped unless it is itself `Html` (made by
 * `html`, or by `trusted` for markup the service wrote).
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | null | undefined | false | readonly Value[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<td>${hostname}</td>\``: the values escaped, arrays joined, null/undefined/false left out. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}

/** Markup the service itself wrote (a rendered chart, an asset URL it computed): put in as it is. */
export function trusted(markup: string): Html {
  return new Html(markup);
}
