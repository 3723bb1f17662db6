import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InstallCodeSourceError, readInstallCode, runInstall } from '../src/index.js';
import {
  address,
  codeStatusOf,
  harnessPerSuite,
  inProcess,
  INSTALLER_VERSION,
  issueCode,
  machine,
  type ClientHarness,
} from './client-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'slowdns-code-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A code file of this user's with the given mode. */
function codeFile(name: string, text: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

const CODE = 'SDNS-SD-4K7Q2M-9XW3ZP-HX3W8N';

describe('readInstallCode: the code of an unattended install, as activate.sh reads it', () => {
  it('reads the first line of a code file of mode 600, spaces trimmed', async () => {
    const path = codeFile('first-line', `  ${CODE} \nsecond line\n`);
    expect(await readInstallCode({ codeFile: path, env: {} })).toBe(CODE);
  });

  it('takes the code file before SLOWDNS_INSTALL_CODE', async () => {
    const path = codeFile('wins', `${CODE}\n`);
    expect(
      await readInstallCode({ codeFile: path, env: { SLOWDNS_INSTALL_CODE: 'SDNS-SD-000000-000000-000000' } }),
    ).toBe(CODE);
  });

  it('reads SLOWDNS_INSTALL_CODE, then the file SLOWDNS_INSTALL_CODE_FILE names', async () => {
    expect(await readInstallCode({ env: { SLOWDNS_INSTALL_CODE: CODE } })).toBe(CODE);
    const path = codeFile('from-env', `${CODE}\n`);
    expect(await readInstallCode({ env: { SLOWDNS_INSTALL_CODE_FILE: path } })).toBe(CODE);
  });

  it.each([0o640, 0o604, 0o620, 0o644])(
    'refuses a code file others may read or write (mode %o) without saying the code',
    async (mode) => {
      const path = codeFile(`mode-${mode.toString(8)}`, `${CODE}\n`, mode);
      const refusal = readInstallCode({ codeFile: path, env: {} });
      await expect(refusal).rejects.toThrow(InstallCodeSourceError);
      await expect(refusal).rejects.toThrow(/may be read or written by others .*chmod 600/);
      await expect(refusal).rejects.not.toThrow(CODE);
    },
  );

  it('refuses a missing file, a folder and an empty file, and no source at all', async () => {
    await expect(readInstallCode({ codeFile: join(dir, 'missing'), env: {} })).rejects.toThrow(
      /cannot read the install code file .*ENOENT/,
    );
    await expect(readInstallCode({ codeFile: dir, env: {} })).rejects.toThrow(/not a regular file/);
    await expect(readInstallCode({ codeFile: codeFile('empty', '\n'), env: {} })).rejects.toThrow(/is empty/);
    await expect(readInstallCode({ env: {} })).rejects.toThrow(/no install code/);
  });
});

describe('runInstall with the code read from a code file', () => {
  let h: ClientHarness;
  harnessPerSuite(inProcess, (opened) => {
    h = opened;
  });

  it('enrols with a code read only when the flow starts, from a file of mode 600', async () => {
    const code = await issueCode(h);
    const path = codeFile('issued', `${code}\n`);
    const result = await runInstall({
      client: h.client,
      installCode: () => readInstallCode({ codeFile: path, env: {} }),
      machine,
      installerVersion: INSTALLER_VERSION,
      requestedRef: 'main',
      confirmAddress: async () => address,
      install: async () => {},
      signals: [],
    });
    expect(result.outcome).toBe('confirmed');
    expect(await codeStatusOf(h, code)).toBe('consumed');
  });
});
