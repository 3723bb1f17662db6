import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptInvalidError, verifyReceipt } from '../../clients/typescript/src/receipt.js';
import { signReceipt } from '../../src/domain/activations/receipts.js';
import { generatePrivateJwk, keyRingFromJwks } from '../../src/domain/tokens/signing-keys.js';
import { serveOverHttp, type HttpServer } from '../support/browser.js';
import { activatedInstall, confirmRequest } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `slowdns …` as a person runs it, with `input` on stdin. */
function slowdns(args: string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/slowdns.js', ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
    child.stdin!.end(input ?? '');
  });
}

/** The same receipt with one claim changed and the signature kept. */
function tampered(receipt: string): string {
  const [header, payload, signature] = receipt.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  return `${header}.${Buffer.from(JSON.stringify({ ...claims, hostname: 'elsewhere.example.net' })).toString('base64url')}.${signature}`;
}

describe('verifying a receipt offline: verifyReceipt and slowdns receipt verify', { timeout: 120_000 }, () => {
  let t: TestApp;
  let service: HttpServer;
  let dir: string;
  let receipt: string;
  let installToken: string;
  let jwks: JSONWebKeySet;
  let jwksFile: string;
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };

  beforeAll(async () => {
    t = await createTestApp();
    service = await serveOverHttp(() => t.app);
    dir = await mkdtemp(join(tmpdir(), 'slowdns-receipt-'));
    const activated = await activatedInstall(t);
    installToken = activated.installToken;
    receipt = (await (await confirmRequest(t, activated.activationId, activated.installToken)).json()).data.receipt;
    jwks = await (await fetch(`${service.origin}/.well-known/jwks.json`)).json();
    jwksFile = await file('jwks.json', JSON.stringify(jwks));
  });
  afterAll(async () => {
    await service?.close();
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const refusal = (text: string) =>
    verifyReceipt(text, jwks).then(
      () => undefined,
      (err: unknown) => (err instanceof ReceiptInvalidError ? err.problem : err),
    );

  it('the TypeScript client verifies the receipt from confirm and answers its claims', async () => {
    const claims = await verifyReceipt(receipt, jwks);
    expect(claims).toMatchObject({
      iss: 'slowdns-activation',
      sub: expect.stringMatching(/^act_/),
      machine_id_hmac: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('the client refuses a tampered receipt, one signed by an unknown key, an install token and garbage, each for its reason', async () => {
    const stranger = await keyRingFromJwks([await generatePrivateJwk()]);
    const claims = await verifyReceipt(receipt, jwks);
    const foreign = await signReceipt(stranger.signing, {
      id: claims.sub,
      installCodeId: claims.install_code_id,
      hostname: claims.hostname,
      publicIp: claims.public_ip,
      machineId: 'x',
      sshFingerprint: claims.ssh_fingerprint,
      sshKeyProven: claims.ssh_key_proven,
      requestedRef: claims.requested_ref,
      installerVersion: claims.installer_version,
      confirmedAt: new Date(),
    });
    expect(await refusal(tampered(receipt))).toBe('bad_signature');
    expect(await refusal(foreign)).toBe('unknown_key');
    expect(await refusal(installToken)).toBe('malformed');
    expect(await refusal('not.a.receipt')).toBe('malformed');
  });

  it('slowdns receipt verify prints the claims and exits 0, from a file against the JWKS URL and from stdin against a saved JWKS', async () => {
    const fromFile = await slowdns([
      'receipt',
      'verify',
      await file('receipt.jwt', `${receipt}\n`),
      '--jwks',
      `${service.origin}/.well-known/jwks.json`,
    ]);
    expect(fromFile).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(fromFile.stdout)).toEqual(await verifyReceipt(receipt, jwks));
    const fromStdin = await slowdns(['receipt', 'verify', '-', '--jwks', jwksFile], receipt);
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout).sub).toMatch(/^act_/);
  });

  it('slowdns receipt verify: 4 for a tampered receipt, 5 for an unknown key, 6 for an install token presented as a receipt', async () => {
    const stranger = await keyRingFromJwks([await generatePrivateJwk()]);
    const foreign = await signReceipt(stranger.signing, {
      id: 'act_0000000000000000',
      installCodeId: 'ic_0000000000000000',
      hostname: 'h',
      publicIp: '203.0.113.1',
      machineId: 'x',
      sshFingerprint: 'SHA256:x',
      sshKeyProven: false,
      requestedRef: 'main',
      installerVersion: '1',
      confirmedAt: new Date(),
    });
    const runs = await Promise.all(
      [tampered(receipt), foreign, installToken].map((text) =>
        slowdns(['receipt', 'verify', '-', '--jwks', jwksFile], text),
      ),
    );
    expect(runs.map((r) => r.code)).toEqual([4, 5, 6]);
    expect(runs.map((r) => r.stdout)).toEqual(['', '', '']);
    expect(runs[0]!.stderr).toMatch(/^slowdns: receipt refused: the signature does not verify/);
    expect(runs[1]!.stderr).toMatch(/^slowdns: receipt refused: no key of the JWKS has the receipt's kid/);
    expect(runs[2]!.stderr).toMatch(/^slowdns: receipt refused: not a receipt: its typ is not slowdns-receipt\+jwt/);
  });

  it('slowdns receipt verify: a JWKS URL nobody answers is 3, a missing file 2', async () => {
    expect((await slowdns(['receipt', 'verify', '-', '--jwks', 'http://127.0.0.1:9/jwks.json'], receipt)).code).toBe(3);
    expect((await slowdns(['receipt', 'verify', join(dir, 'absent'), '--jwks', jwksFile])).code).toBe(2);
  });
});
