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

function loadAsset(fileName: string, path: string, contentType: string): PageAsset {
  // Read next to this module, so `npx tsx src/main.ts` from a fresh clone needs no build step.
  const body = readFileSync(new URL(fileName, import.meta.url), 'utf8');
  const version = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { path, versionedUrl: `${path}?v=${version}`, version, contentType, body };
}

/** Read once when the app is built: a missing file stops the start instead of breaking the page later. */
export function loadPageAssets(): { kitScript: PageAsset; script: PageAsset; watchScript: PageAsset; approvalScript: PageAsset; style: PageAsset } {
  return {
    kitScript: loadAsset('page-kit.js', '/slowdns/page-kit.js', 'text/javascript; charset=utf-8'),
    script: loadAsset('app.js', '/slowdns/app.js', 'text/javascript; charset=utf-8'),
    watchScript: loadAsset('watch.js', '/slowdns/watch.js', 'text/javascript; charset=utf-8'),
    approvalScript: loadAsset('approval.js', '/slowdns/approval.js', 'text/javascript; charset=utf-8'),
    style: loadAsset('app.css', '/slowdns/app.css', 'text/css; charset=utf-8'),
  };
}
