// The one cost the design cannot drop: an Ed25519 signature per step that answers a token (the precheck
// token, the install token, the receipt). The floors sign one too, a compact JWS of about their size,
// so the service is held to what it must do and not to a floor that skips its one unavoidable cost.
import { generateKeyPairSync, sign } from 'node:crypto';
import type { Step } from './lifecycle-steps.js';

export const SIGNED_STEPS: readonly Step[] = ['precheck', 'activate', 'confirm'];

const floorKey = generateKeyPairSync('ed25519').privateKey;
const floorHeader = Buffer.from('{"alg":"EdDSA","kid":"k_0123456789abcdef","typ":"slowdns-install+jwt"}').toString(
  'base64url',
);

export function floorToken(i: number): string {
  const payload = Buffer.from(
    JSON.stringify({
      iss: 'http://localhost:8080',
      aud: 'slowdns-install',
      sub: `act_${i}`,
      jti: `${i}`,
      iat: Date.now(),
    }),
  ).toString('base64url');
  const input = `${floorHeader}.${payload}`;
  return `${input}.${sign(null, Buffer.from(input), floorKey).toString('base64url')}`;
}
