import { eq } from 'drizzle-orm';
import { base64url, SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { activations, installCodes } from '../../src/db/schema.js';
import { signCompactJws } from '../../src/domain/tokens/compact-jws.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { generatePrivateJwk, keyRingFromJwks } from '../../src/domain/tokens/signing-keys.js';
import { signInstallToken, signPrecheckToken } from '../../src/domain/tokens/install-step-tokens.js';
import {
  activateRequest,
  activatedInstall,
  type Activated,
  confirmRequest,
  expectError,
  issueCode,
  machine,
  precheckToken,
} from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

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
  const t = useTestApp();

  /** A refused activate changes nothing: the code is still `issued` and has no activation. */
  async function expectCodeUntouched(code: string) {
    const [row] = await t.database.db
      .select()
      .from(installCodes)
      .where(eq(installCodes.codeHash, sha256Hex(code)));
    expect(row?.status).toBe('issued');
    expect(await t.database.db.select().from(activations).where(eq(activations.installCodeId, row!.id))).toEqual([]);
  }

  /** A refused confirm is 401 and changes nothing: the activation is still `activated`, its token unused. */
  async function refusedConfirm(a: Activated, badToken: string) {
    await expectError(await confirmRequest(t, a.activationId, badToken), 401, 'install_token_invalid');
    const [row] = await t.database.db.select().from(activations).where(eq(activations.id, a.activationId));
    expect(row).toMatchObject({ status: 'activated', installTokenUsedAt: null, confirmedAt: null });
  }

  describe('precheck token at activate', () => {
    let code: string;
    let token: string;
    beforeEach(async () => {
      code = await issueCode(t);
      token = await precheckToken(t, code);
    });

    const refused = async (badToken: string) => {
      await expectError(await activateRequest(t, code, badToken), 401, 'precheck_token_invalid');
      await expectCodeUntouched(code);
    };

    it('a tampered signature', () => refused(tamperSignature(token)));
    it('tampered claims under the original signature', () => refused(tamperClaims(token, { mid: '0'.repeat(32) })));
    it('alg none', () => refused(algNone(token)));
    it('an unsecured JWT built by jose', () => refused(new UnsecuredJWT(decodeJwt(token)).encode()));
    it('a token signed by a key the service does not have, under its kid', async () => {
      const foreign = await keyRingFromJwks([{ ...(await generatePrivateJwk()), kid: t.keys.signing.kid }]);
      const claims = decodeJwt(token);
      await refused(
        await signPrecheckToken(
          foreign,
          { codeHash: claims.sub!, ...pick(claims) },
          t.clock.now(),
          new Date(claims.exp! * 1000),
        ),
      );
    });
    it('an HS256 token using the public key as the secret', async () => {
      const forged = await new SignJWT(decodeJwt(token))
        .setProtectedHeader({ alg: 'HS256', typ: 'slowdns-precheck+jwt', kid: t.keys.signing.kid })
        .sign(new TextEncoder().encode(JSON.stringify(t.keys.publicJwks(t.clock.now()).keys[0])));
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
    it('characters outside base64url around the signature (which a lenient decoder would skip)', async () => {
      const [h, p, s] = token.split('.') as [string, string, string];
      await refused(`${h}.${p}.${s}==`);
      await refused(`${h}.${p}.${s.slice(0, 10)}!${s.slice(10)}`);
      await refused(`${h}.${p}.${s}.`);
    });

    describe("signed with the service's own key, but not as it makes them", () => {
      /** The claims of the real token, changed, signed with the ring's signing key. */
      const resigned = (header: Record<string, unknown>, change: Record<string, unknown>) =>
        signCompactJws(
          { typ: 'slowdns-precheck+jwt', kid: t.keys.signing.kid, ...header },
          { ...decodeJwt(token), ...change },
          t.keys.signing.key,
        );
      it('the same claims verify (the control)', async () => {
        const answer = await activateRequest(t, code, await resigned({}, {}));
        expect(answer.status).toBe(200);
      });
      it('a `crit` header', async () => refused(await resigned({ crit: ['exp'] }, {})));
      it('another typ', async () => refused(await resigned({ typ: 'JWT' }, {})));
      it('another issuer', async () => refused(await resigned({}, { iss: 'someone-else' })));
      it('another audience', async () => refused(await resigned({}, { aud: 'slowdns:install:confirm' })));
      it('no exp', async () => refused(await resigned({}, { exp: undefined })));
      it('an exp that is not a number', async () => refused(await resigned({}, { exp: String(decodeJwt(token).exp) })));
      it('a jti that is not a string', async () => refused(await resigned({}, { jti: 42 })));
      it('not valid before a time still to come', async () =>
        refused(await resigned({}, { nbf: decodeJwt(token).exp })));
    });
  });

  describe('install token at confirm', () => {
    it('a tampered signature', async () => {
      const a = await activatedInstall(t);
      await refusedConfirm(a, tamperSignature(a.installToken));
    });
    it('alg none', async () => {
      const a = await activatedInstall(t);
      await refusedConfirm(a, algNone(a.installToken));
    });
    it('a key the service does not have', async () => {
      const a = await activatedInstall(t);
      const foreign = await keyRingFromJwks([{ ...(await generatePrivateJwk()), kid: t.keys.signing.kid }]);
      const claims = decodeJwt(a.installToken);
      const forged = await signInstallToken(
        foreign,
        { activationId: a.activationId, jti: claims.jti! },
        t.clock.now(),
        new Date(claims.exp! * 1000),
      );
      await refusedConfirm(a, forged);
    });
    it('an expired install token', async () => {
      const a = await activatedInstall(t);
      t.clock.advance(3600);
      await refusedConfirm(a, a.installToken);
    });
    it('a precheck token used as an install token', async () => {
      const a = await activatedInstall(t);
      const pre = await precheckToken(t, await issueCode(t));
      await refusedConfirm(a, pre);
    });
    it('the install token of another activation', async () => {
      const a = await activatedInstall(t);
      const b = await activatedInstall(t);
      await refusedConfirm(a, b.installToken);
    });
    it("a validly signed token whose jti is not the activation's", async () => {
      const a = await activatedInstall(t);
      const claims = decodeJwt(a.installToken);
      const forged = await signInstallToken(
        t.keys,
        { activationId: a.activationId, jti: 'another-jti' },
        t.clock.now(),
        new Date(claims.exp! * 1000),
      );
      await refusedConfirm(a, forged);
    });
  });
});

function pick(claims: Record<string, unknown>) {
  return {
    machineId: String(claims.mid ?? machine.machine_id),
    sshFingerprint: String(claims.ssh ?? machine.ssh_fingerprint),
  };
}
