import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activations, installCodes } from '../../../src/db/schema.js';
import { sha256Hex } from '../../../src/domain/tokens/secret-hash.js';
import { issueCode, overHttp, precheckBody, type ClientHarness } from './client-harness.js';

const fixture = fileURLToPath(new URL('./fixtures/install-until-signal.ts', import.meta.url));

describe('a real SIGTERM to an installer process during its install step', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await overHttp();
  });
  afterAll(() => h?.close());

  it('releases the activation, restores the code, and ends the process by SIGTERM', async () => {
    const code = await issueCode(h);
    // node itself with tsx as a loader (not `npx tsx`): one process, so the signal reaches runInstall directly.
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, h.baseUrl, code], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (exitCode, signal) => resolve({ code: exitCode, signal })),
    );
    const installing = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /installing (act_[0-9a-f]{16})/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      void exited.then(() => reject(new Error(`the installer exited before its install step: ${stdout}${stderr}`)));
    });

    try {
      await interruptDuringInstall();
    } finally {
      // A failing assertion must not leave the installer running.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }

    async function interruptDuringInstall() {
      const activationId = await installing;
      const row = async () =>
        (await h.t.database.db.select().from(activations).where(eq(activations.id, activationId)))[0];
      expect((await row())?.status).toBe('activated');

      child.kill('SIGTERM');
      expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
      expect(stdout).toContain('released {"released":true,"install_code_restored":true}');
      expect(stdout).not.toContain('returned');

      expect((await row())?.status).toBe('released');
      const [codeRow] = await h.t.database.db
        .select()
        .from(installCodes)
        .where(eq(installCodes.codeHash, sha256Hex(code)));
      expect(codeRow?.status).toBe('issued');
      expect(await h.client.precheck(precheckBody(code))).toMatchObject({ install_code: code });
    }
  });
});
