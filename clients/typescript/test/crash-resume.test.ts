import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activations, installCodes } from '../../../src/db/schema.js';
import { sha256Hex } from '../../../src/domain/tokens/secret-hash.js';
import { fileStateStore, runInstall } from '../src/index.js';
import { address, INSTALLER_VERSION, issueCode, machine, overHttp, type ClientHarness } from './client-harness.js';

const fixture = fileURLToPath(new URL('./fixtures/install-until-signal.ts', import.meta.url));

describe('an installer process killed with SIGKILL during its install step, run again with the same state file', () => {
  let h: ClientHarness;
  let dir: string;
  beforeAll(async () => {
    h = await overHttp();
    dir = mkdtempSync(join(tmpdir(), 'slowdns-client-state-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h?.close();
  });

  it('resumes the install (the install step again, then confirm) instead of meeting its own code in use until the token expires', async () => {
    const code = await issueCode(h);
    const stateFile = join(dir, 'installer', 'activation.json');
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, h.baseUrl, code, stateFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child.on('exit', (exitCode, signal) => resolve(signal ?? exitCode)),
    );
    const installing = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /installing (act_[0-9a-f]{16})/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      void exited.then(() => reject(new Error(`the installer exited before its install step: ${stdout}${stderr}`)));
    });
    let activationId: string;
    try {
      activationId = await installing;
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const row = async () =>
      (await h.t.database.db.select().from(activations).where(eq(activations.id, activationId)))[0];
    expect((await row())?.status).toBe('activated'); // nothing released it: the process had no chance

    // The state file: private, the activation id and install token only.
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'installer')).mode & 0o777).toBe(0o700);
    expect(Object.keys(JSON.parse(readFileSync(stateFile, 'utf8')) as object)).toEqual([
      'activation_id',
      'install_token',
    ]);

    const installs: { id: string; resumed: string | undefined }[] = [];
    const result = await runInstall({
      client: h.client,
      installCode: code, // given, as a rerun of the same command gives it: the saved activation comes first
      machine,
      installerVersion: INSTALLER_VERSION,
      requestedRef: 'main',
      state: fileStateStore(stateFile),
      confirmAddress: async () => address,
      install: async (activation, { resumed }) =>
        void installs.push({ id: activation.activation_id, resumed: resumed?.status }),
      signals: [],
    });
    expect(result).toMatchObject({
      outcome: 'confirmed',
      resumed: { status: 'activated' },
      confirmation: { activation_id: activationId!, status: 'confirmed' },
    });
    expect(installs).toEqual([{ id: activationId!, resumed: 'activated' }]);
    expect((await row())?.status).toBe('confirmed');
    const [codeRow] = await h.t.database.db
      .select()
      .from(installCodes)
      .where(eq(installCodes.codeHash, sha256Hex(code)));
    expect(codeRow?.status).toBe('consumed');
  });

  it('fileStateStore: a missing file is no state', async () => {
    expect(await fileStateStore(join(dir, 'missing', 'state.json')).load()).toBeUndefined();
  });

  it('fileStateStore: a saved state loads back, and clear removes it', async () => {
    const store = fileStateStore(join(dir, 'saved', 'state.json'));
    await store.save({ activation_id: 'act_0123456789abcdef', install_token: 'a.b.c' });
    expect(await store.load()).toEqual({ activation_id: 'act_0123456789abcdef', install_token: 'a.b.c' });
    await store.clear();
    expect(await store.load()).toBeUndefined();
  });

  it('fileStateStore: a file that is not a state is an error naming it', async () => {
    const file = join(dir, 'other', 'state.json');
    const store = fileStateStore(file);
    await store.save({ activation_id: 'act_0123456789abcdef', install_token: 'a.b.c' });
    writeFileSync(file, '{"activation_id":"act_0123456789abcdef","install_token":"a b"}');
    await expect(store.load()).rejects.toThrow(`${file} does not hold an install state`);
  });
});
