/**
 * Install codes, ids and tokens are made only of these characters, a promise of the contract: a shell
 * installer without jq can cut them out of a JSON answer with `sed`, and no quoting or escaping can
 * hide inside them (clients/shell/activate.sh relies on it).
 */
export const SHELL_SAFE_PATTERN = /^[A-Za-z0-9._-]+$/;

export const SHELL_SAFE_SENTENCE =
  'Made only of the characters `[A-Za-z0-9._-]` (a guarantee of this contract): a shell can cut it out of the JSON answer with `sed`.';
