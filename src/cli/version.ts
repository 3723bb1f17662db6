import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The service's version, as package.json says it: the command runs from src/cli/ (tsx) or dist/src/cli/
 * (bin/slowdns.js), so the checkout's package.json is two or three folders up.
 */
export function slowdnsVersion(): string {
  for (const up of ['../../package.json', '../../../package.json']) {
    const path = fileURLToPath(new URL(up, import.meta.url));
    if (!existsSync(path)) continue;
    const pkg = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'slowdns-activation' && pkg.version) return pkg.version;
  }
  return 'unknown';
}
