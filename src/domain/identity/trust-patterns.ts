/**
 * The pattern grammar of a `trust` rule (DESIGN §25): a pattern matches the whole value, case-sensitive; `*`
 * matches one or more characters other than `/`, `:` and `.`, at most 4 per pattern. Every other character is
 * itself.
 */
const MAX_WILDCARDS = 4;
export const MAX_PATTERN_LENGTH = 256;

const SEPARATORS = /[/:.]/;

/** Why a pattern cannot be a rule, or undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'must not be empty';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  if (pattern.split('*').length - 1 > MAX_WILDCARDS) return `may hold at most ${MAX_WILDCARDS} *`;
  if (pattern.includes('**')) return 'must not hold ** (one * already matches one or more characters)';
  return undefined;
}

/**
 * The words every GitHub, GitLab or Kubernetes subject holds whoever it names (`repo:…:ref:refs/heads/main`,
 * `system:serviceaccount:…`): a segment that is one of them pins nobody.
 */
const STRUCTURAL_WORDS = new Set([
  'repo',
  'ref',
  'refs',
  'heads',
  'tags',
  'main',
  'master',
  'environment',
  'pull_request',
  'project_path',
  'ref_type',
  'branch',
  'tag',
  'system',
  'serviceaccount',
]);

/**
 * Whether a pattern pins something: one of its segments (between `/`, `:` and `.`) holds no `*` and is not one of
 * the words every subject holds. A lone `*`, or a GitHub subject whose owner and name are both `*`, pins nobody, and GitHub,
 * GitLab.com and Google issue tokens to anyone.
 */
export function hasLiteralSegment(pattern: string): boolean {
  return pattern
    .split(SEPARATORS)
    .some((segment) => segment.length > 0 && !segment.includes('*') && !STRUCTURAL_WORDS.has(segment));
}

/**
 * Whether one segment (no separators in it) matches one pattern segment: each `*` is one character and then any
 * run. The two-pointer wildcard walk: time bounded by the product of the lengths, never exponential.
 */
function segmentMatches(pattern: string, value: string): boolean {
  // Tokens: a character to meet, ONE (any one character) or RUN (any run, perhaps empty).
  const ONE = 1;
  const RUN = 2;
  const glob: (string | number)[] = [];
  for (const ch of pattern.split('')) glob.push(...(ch === '*' ? [ONE, RUN] : [ch]));
  let p = 0;
  let v = 0;
  let runAt = -1;
  let resumeAt = 0;
  while (v < value.length) {
    if (p < glob.length && (glob[p] === ONE || glob[p] === value[v])) {
      p += 1;
      v += 1;
    } else if (p < glob.length && glob[p] === RUN) {
      runAt = p;
      resumeAt = v;
      p += 1;
    } else if (runAt >= 0) {
      p = runAt + 1;
      resumeAt += 1;
      v = resumeAt;
    } else return false;
  }
  while (p < glob.length && glob[p] === RUN) p += 1;
  return p === glob.length;
}

const SEPARATED = /([/:.])/;

/** Whether the value matches the pattern as a whole: separators in the same places, each segment matching its own. */
export function patternMatches(pattern: string, value: string): boolean {
  const wanted = pattern.split(SEPARATED);
  const seen = value.split(SEPARATED);
  if (wanted.length !== seen.length) return false;
  return wanted.every((part, i) => (i % 2 === 1 ? part === seen[i] : segmentMatches(part, seen[i]!)));
}
