import { randomInt } from 'node:crypto';

/** Crockford base32: no I, L, O or U, so a code read aloud or retyped is hard to get wrong. */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const GROUP = 6;
const groupPattern = new RegExp(`^[${CROCKFORD_ALPHABET}]{${GROUP}}$`);
const prefixPattern = /^[A-Z0-9]{2,8}$/;

/** `<PREFIX>-SD-XXXXXX-XXXXXX-XXXXXX`: 18 characters of 5 bits each (90 bits) from the CSPRNG. */
export function generateInstallCode(prefix: string): string {
  const groups = Array.from({ length: 3 }, () =>
    Array.from({ length: GROUP }, () => CROCKFORD_ALPHABET[randomInt(CROCKFORD_ALPHABET.length)]).join(''),
  );
  return [prefix, 'SD', ...groups].join('-');
}

/**
 * The canonical form of a typed code, or null when it does not have the shape of one.
 * Forgiving as Crockford intends: any case, spaces anywhere, O read as 0 and I or L read as 1.
 */
export function normaliseInstallCode(input: string): string | null {
  const parts = input.replace(/\s+/g, '').toUpperCase().split('-');
  if (parts.length !== 5) return null;
  const [prefix, sd, ...groups] = parts as [string, string, string, string, string];
  if (!prefixPattern.test(prefix) || sd !== 'SD') return null;
  const fixed = groups.map((g) => g.replace(/O/g, '0').replace(/[IL]/g, '1'));
  if (!fixed.every((g) => groupPattern.test(g))) return null;
  return [prefix, sd, ...fixed].join('-');
}

export function installCodePrefix(code: string): string {
  return code.slice(0, code.indexOf('-'));
}

/** The masked form shown back to people: the code's start, an ellipsis, the last group. */
export function installCodeHint(code: string): string {
  return `${code.slice(0, code.indexOf('-SD-') + 4)}…${code.slice(-GROUP)}`;
}
