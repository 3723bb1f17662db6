import { base64url, SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generatePrivateJwk, keyRingFromJwks } from '../../src/domain/signing-keys.js';
import { signInstallToken, signPrecheckToken } from '../../src/domain/tokens.js';
import {
  activateRequest,
  activatedInstall,
  confirmRequest,
  expectError,
  issueCode,
  machine,
  precheckToken,
} from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** Flips one character of the signature: same header and claims, invalid signature. */
function tamperSignature(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const flipped = s[0] === 'A' ? `B${s.slice(1)}` : `A${s.slice(1)}`;
  return `${h}.${p}.${flipped}`;
}

/** Changes a claim but keeps the original signature. */
function tamperClaims(token: string, change: Record<string, unknown>): string {
  const [h, , s] = token.split('.') as [string, string, string];
  const claims = { ...decodeJwt(token), ...change };
  return `${h}.${base64url.encode(JSON.stringify(claims))}.${s}`;
}

/** The same header and claims, re-signed as `alg: none`. */
function algNone(token: string): string {
  const claims = decodeJwt(token);
  const header = { ...decodeProtectedHeader(token), alg: 'none' };
  return `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(claims))}.`;
}

describe('token attacks are refused with 401', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(() => t.reset());
  afterAll(() => t.close());

  describe('precheck token at activate', () => {
    let code: string;
    let token: string;
    beforeEach(async () => {
      code = await issueCode(t);
      token = await precheckToken(t, code);
    });

    const refused = async (badToken: string) => expectError(await activateRequest(t, code, badToken), 401, 'precheck_token_invalid');

    it('a tampered signature', () => refused(tamperSignature(token)));
    it('tampered claims under the original signature', () => refused(tamperClaims(token, { mid: '0'.repeat(32) })));
    it('alg none', () => refused(algNone(token)));
    it('an unsecured JWT built by jose', () => refused(new UnsecuredJWT(decodeJwt(token)).encode()));
    it('a token signed by a key the service does not have, under its kid', async () => {
      const foreign = await keyRingFromJwks([{ ...(await generatePrivateJwk()), kid: t.keys.signing.kid }]);
      const claims = decodeJwt(token);
      await refused(await signPrecheckToken(foreign, { codeHash: claims.sub!, ...pick(claims) }, t.clock.now(), new Date(claims.exp! * 1000)));
    });
    it('an HS256 token using the public key as the secret', async () => {
      const forged = await new SignJWT(decodeJwt(token))
        .setProtectedHeader({ alg: 'HS256', typ: 'slowdns-precheck+jwt', kid: t.keys.signing.kid })
        .sign(new TextEncoder().encode(JSON.stringify(t.keys.publicJwks.keys[0])));
      await refused(forged);
    });
    it('an expired precheck token', async () => {
      t.clock.advance(15 * 60);
      await refused(token);
    });
    it('an install token used as a precheck token', async () => {
      const { installToken } = await activatedInstall(t);
      await refused(installToken);
    });
    it('a precheck token made for another code', async () => {
      const otherCode = await issueCode(t);
      await refused(await precheckToken(t, otherCode));
    });
    it('garbage', () => refused('not.a.token'));
  });

  describe('install token at confirm', () => {
    it('a tampered signature', async () => {
      const a = await activatedInstall(t);
      await expectError(await confirmRequest(t, a.activationId, tamperSignature(a.installToken)), 401, 'install_token_invalid');
    });
    it('alg none', async () => {
      const a = await activatedInstall(t);
      await expectError(await confirmRequest(t, a.activationId, algNone(a.installToken)), 401, 'install_token_invalid');
    });
    it('a key the service does not have', async () => {
      const a = await activatedInstall(t);
      const foreign = await keyRingFromJwks([{ ...(await generatePrivateJwk()), kid: t.keys.signing.kid }]);
      const claims = decodeJwt(a.installToken);
      const forged = await signInstallToken(foreign, { activationId: a.activationId, jti: claims.jti! }, t.clock.now(), new Date(claims.exp! * 1000));
      await expectError(await confirmRequest(t, a.activationId, forged), 401, 'install_token_invalid');
    });
    it('an expired install token', async () => {
      const a = await activatedInstall(t);
      t.clock.advance(3600);
      await expectError(await confirmRequest(t, a.activationId, a.installToken), 401, 'install_token_invalid');
    });
    it('a precheck token used as an install token', async () => {
      const a = await activatedInstall(t);
      const pre = await precheckToken(t, await issueCode(t));
      await expectError(await confirmRequest(t, a.activationId, pre), 401, 'install_token_invalid');
    });
    it('the install token of another activation', async () => {
      const a = await activatedInstall(t);
      const b = await activatedInstall(t);
      await expectError(await confirmRequest(t, a.activationId, b.installToken), 401, 'install_token_invalid');
    });
    it('a validly signed token whose jti is not the activation\'s', async () => {
      const a = await activatedInstall(t);
      const claims = decodeJwt(a.installToken);
      const forged = await signInstallToken(t.keys, { activationId: a.activationId, jti: 'another-jti' }, t.clock.now(), new Date(claims.exp! * 1000));
      await expectError(await confirmRequest(t, a.activationId, forged), 401, 'install_token_invalid');
    });
  });
});

function pick(claims: Record<string, unknown>) {
  return { machineId: String(claims.mid ?? machine.machine_id), sshFingerprint: String(claims.ssh ?? machine.ssh_fingerprint) };
}
