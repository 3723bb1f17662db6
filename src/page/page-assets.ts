import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A file the page loads, served by this service from memory. */
export interface PageAsset {
  /** Route path, e.g. `/slowdns/app.js`. */
  path: string;
  /** Path plus `?v=<content hash>`: what the page links to, so a new release is never served stale. */
  versionedUrl: string;
  version: string;
  contentType: string;
  body: string;
}

/**
 * A file read once (next to its module, so `npx tsx src/main.ts` from a fresh clone needs no build step), served at
 * `path`. A stylesheet too long for one file is written in parts, by concept, and served as one: joined by the
 * blank line that separates rules, so the page still loads one stylesheet.
 */
export function loadAsset(file: URL | readonly URL[], path: string, contentType: string): PageAsset {
  const body = (Array.isArray(file) ? file : [file]).map((part: URL) => readFileSync(part, 'utf8')).join('\n');
  const version = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { path, versionedUrl: `${path}?v=${version}`, version, contentType, body };
}

/** Read once when the app is built: a missing file stops the start instead of breaking the page later. */
export function loadPageAssets(): {
  kitScript: PageAsset;
  script: PageAsset;
  watchScript: PageAsset;
  approvalScript: PageAsset;
  style: PageAsset;
} {
  return {
    kitScript: loadAsset(
      new URL('page-kit.js', import.meta.url),
      '/slowdns/page-kit.js',
      'text/javascript; charset=utf-8',
    ),
    script: loadAsset(new URL('app.js', import.meta.url), '/slowdns/app.js', 'text/javascript; charset=utf-8'),
    watchScript: loadAsset(new URL('watch.js', import.meta.url), '/slowdns/watch.js', 'text/javascript; charset=utf-8'),
    approvalScript: loadAsset(
      new URL('approval.js', import.meta.url),
      '/slowdns/approval.js',
      'text/javascript; charset=utf-8',
    ),
    style: loadPageStyle('/slowdns/app.css'),
  };
}

/**
 * The page's stylesheet, served at `path` (the console serves it again under /admin): app.css (colours, dark
 * mode, the card, buttons, the code) then watch.css (what became of the code, its machine, cancel and approval).
 */
export function loadPageStyle(path: string): PageAsset {
  return loadAsset(
    [new URL('app.css', import.meta.url), new URL('watch.css', import.meta.url)],
    path,
    'text/css; charset=utf-8',
  );
}
