/**
 * A length of time as people write it, read the same way by every setting and flag that takes one
 * (`INSTALL_CODE_TTL_SECONDS=15m`, `slowdns codes create --ttl 7d`): whole seconds (`900`), or a whole
 * number of seconds, minutes, hours or days (`90s`, `15m`, `12h`, `7d`). Undefined when it is neither.
 */
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

export function durationSeconds(text: string): number | undefined {
  const match = /^(\d{1,9})\s*([smhd]?)$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_SECONDS[(match[2] || 's') as keyof typeof UNIT_SECONDS];
}

/** `3600` → `1h`, `1800` → `30m`: a duration in the largest whole unit, as the messages say it. */
export function durationText(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}
