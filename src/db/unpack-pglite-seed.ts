import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipped = promisify(gunzip);

/** A tar header's field: NUL-terminated text, or an octal number. */
const text = (tar: Buffer, at: number, length: number) => tar.toString('utf8', at, at + length).replace(/\0.*$/s, '');
const octal = (tar: Buffer, at: number, length: number) => Number.parseInt(text(tar, at, length).trim() || '0', 8);

/**
 * A fresh DATA_DIR on disk gets the seed (pglite-seed.ts, a ustar archive of the data folder, each
 * path from its root) written into it by node itself, before PGlite opens it as an existing database.
 * PGlite's own loading (`loadDataDir`) held the 30 MB archive as a Blob and wrote each of its 1,100 files
 * through Emscripten's file system on the main thread: about half of a fresh start's CPU. PG_VERSION is
 * written last, so a start interrupted while unpacking finds no database and unpacks again.
 * False when there is no seed file (running from src/, or a dist/ built by `npm start` whose server has not yet
 * made one): the caller makes one (client.ts) or PGlite runs initdb.
 */
export async function unpackPgliteSeed(seedFile: string, dataDir: string): Promise<boolean> {
  if (!existsSync(seedFile)) return false;
  await writePgliteSeed(await readFile(seedFile), dataDir);
  return true;
}

/** The gzipped seed's files written into `dataDir`, PG_VERSION last. */
export async function writePgliteSeed(gzipped: Uint8Array, dataDir: string): Promise<void> {
  const tar = await gunzipped(gzipped);
  const files: { path: string; data: Buffer; mode: number }[] = [];
  const folders = new Set<string>([dataDir]);
  for (let at = 0; at + 512 <= tar.length; ) {
    if (tar[at] === 0) break;
    const prefix = text(tar, at + 345, 155);
    const path = join(dataDir, prefix, text(tar, at + 0, 100));
    const mode = octal(tar, at + 100, 8);
    const size = octal(tar, at + 124, 12);
    const type = String.fromCharCode(tar[at + 156]!);
    if (type === '5') folders.add(path);
    else if (type === '0' || type === '\0') {
      files.push({ path, data: tar.subarray(at + 512, at + 512 + size), mode });
      folders.add(dirname(path));
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  for (const folder of [...folders].sort()) await mkdir(folder, { recursive: true, mode: 0o750 });
  const version = files.find((f) => f.path === join(dataDir, 'PG_VERSION'));
  await Promise.all(
    files.filter((f) => f !== version).map((f) => writeFile(f.path, f.data, { mode: f.mode & 0o777 || 0o600 })),
  );
  if (version) await writeFile(version.path, version.data, { mode: 0o600 });
}
