import { randomInt } from 'node:crypto';

/** Crockford base32: no I, L, O or U, so a code read aloud or retyped is hard to get wrong. */
const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const GROUP = 6;
const groupPattern = new RegExp(`^[${CROCKFORD_ALPHABET}]{${GROUP}}$`);
const prefixPattern = /^[A-Z0-9]{2,8}$/;

/**
 * The first character of a fleet code (DESIGN §22): a page code never starts its random part with it,
 * so the install steps read a fleet code's bindings only for a code that starts with it, and a page
 * code's precheck and activate stay one statement each. The page code's first character is one of 31, not 32.
 */
const FLEET_MARK = 'Z';
const PAGE_FIRST_ALPHABET = CROCKFORD_ALPHABET.replace(FLEET_MARK, '');

function randomCharacters(alphabet: string, length: number): string {
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/**
 * `<PREFIX>-SD-XXXXXX-XXXXXX-XXXXXX`: 18 characters from the CSPRNG, 5 bits each (a page code's first, 4.95:
 * 89.95 bits); a fleet code (`kind: 'fleet'`) starts its random part with `Z`.
 */
export function generateInstallCode(prefix: string, kind: 'page' | 'fleet' = 'page'): string {
  const first = kind === 'fleet' ? FLEET_MARK : randomCharacters(PAGE_FIRST_ALPHABET, 1);
  const random = first + randomCharacters(CROCKFORD_ALPHABET, 3 * GROUP - 1);
  return [prefix, 'SD', random.slice(0, GROUP), random.slice(GROUP, 2 * GROUP), random.slice(2 * GROUP)].join('-');
}

/** Whether a canonical code may be a fleet code (its random part starts with `Z`); a page code never is. */
export function mayBeFleetCode(canonicalCode: string): boolean {
  return canonicalCode.charAt(canonicalCode.indexOf('-SD-') + 4) === FLEET_MARK;
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
