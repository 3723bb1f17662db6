import type { components } from '../../clients/typescript/src/schema.js';

type Trust = components['schemas']['Trust'];

/** A code's `trust` block (DESIGN §25) as `codes show` prints it: whom the code admits without a secret; nothing for none. */
export function trustText(trust: Trust | null): string {
  if (!trust) return '';
  const rules = [
    ...(trust.subject_pattern === undefined ? [] : [`  sub matches ${trust.subject_pattern}`]),
    ...Object.entries(trust.claims ?? {}).map(([claim, pattern]) => `  ${claim} matches ${pattern}`),
  ];
  const tags = Object.entries(trust.tags_from_claims ?? {}).map(([tag, claim]) => `${tag} <- ${claim}`);
  return [
    '',
    `Trust: tokens from ${trust.issuer} for ${trust.audiences.join(', ')}, at most ${trust.max_lifetime_seconds} s long, ${trust.jwks ? 'verified with the keys written on the code' : "verified with the issuer's published keys"}:`,
    ...rules,
    ...(tags.length ? [`  tags from claims: ${tags.join(', ')}`] : []),
    '',
  ].join('\n');
}
