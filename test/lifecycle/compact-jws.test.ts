import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signCompactJws, verifyCompactJws } from '../../src/domain/tokens/compact-jws.js';

describe('signatures made together at the end of a turn', () => {
  it('each of many signed at once carries its own payload and verifies under the key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signCompactJws({ typ: 'test', kid: 'k' }, { n: i }, privateKey)),
    );
    expect(new Set(tokens).size).toBe(20);
    const verified = await Promise.all(tokens.map((token) => verifyCompactJws(token, async () => publicKey)));
    expect(verified.map((v) => v.payload.n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('a signature that fails fails alone: the others of its turn are made', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    // An X25519 key agrees on secrets; it cannot sign.
    const { privateKey: x25519Key } = generateKeyPairSync('x25519');
    const answers = await Promise.allSettled([
      signCompactJws({ typ: 'test' }, { n: 1 }, privateKey),
      signCompactJws({ typ: 'test' }, { n: 2 }, x25519Key),
      signCompactJws({ typ: 'test' }, { n: 3 }, privateKey),
    ]);
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
