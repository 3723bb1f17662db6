import { randomInt } from 'node:crypto';

/** Crockford base32: no I, L, O or U, so a code read aloud or retyped is hard to get wrong. */
const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

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

const RANDOM_LENGTH = 3 * GROUP;
const canonicalPattern = new RegExp(
  `^[A-Z0-9]{2,8}-SD-[${CROCKFORD_ALPHABET}]{${GROUP}}-[${CROCKFORD_ALPHABET}]{${GROUP}}-[${CROCKFORD_ALPHABET}]{${GROUP}}$`,
);
/** Whitespace, zero-width characters and every kind of dash or separator a copy, paste or retype may bring. */
const separators = /[\s\u200B-\u200D\u2060\uFEFF\-\u2010-\u2015\u2212_.]/g;

/**
 * The canonical form of a typed code, or null when it does not have the shape of one.
 * Forgiving as Crockford intends: any case, spaces or dashes anywhere (or none), O read as 0 and
 * I or L read as 1. The groups are found by position: the last 18 characters are the random part,
 * the 2 before them `SD`, and what comes first the prefix.
 */
export function normaliseInstallCode(input: string): string | null {
  // What installers send nearly always: the code as shown, already canonical (the steps below return it unchanged).
  if (canonicalPattern.test(input)) return input;
  const compact = input.normalize('NFKC').replace(separators, '').toUpperCase();
  const prefixLength = compact.length - 2 - RANDOM_LENGTH;
  if (prefixLength < 2 || prefixLength > 8) return null;
  const prefix = compact.slice(0, prefixLength);
  const sd = compact.slice(prefixLength, prefixLength + 2);
  const random = compact
    .slice(prefixLength + 2)
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  if (!prefixPattern.test(prefix) || sd !== 'SD') return null;
  const groups = [random.slice(0, GROUP), random.slice(GROUP, 2 * GROUP), random.slice(2 * GROUP)];
  if (!groups.every((g) => groupPattern.test(g))) return null;
  return [prefix, sd, ...groups].join('-');
}

export function installCodePrefix(code: string): string {
  return code.slice(0, code.indexOf('-'));
}

/** The masked form shown back to people: the code's start, an ellipsis, the last group. */
export function installCodeHint(code: string): string {
  return `${code.slice(0, code.indexOf('-SD-') + 4)}…${code.slice(-GROUP)}`;
}
