import { CliError } from './cli-error.js';

/** Commander's collector for a repeatable flag (`--tag a=1 --tag b=2`). */
export const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * `--tag env=prod` as its key and value (`env:prod`, the API's first spelling, is read the same: a key holds
 * neither); the service judges the key and value themselves.
 */
function pairOf(text: string): [string, string] {
  const end = text.search(/[=:]/);
  if (end < 1) throw new CliError(`--tag must be key=value, such as env=prod, not ${text}`, 2);
  return [text.slice(0, end), text.slice(end + 1)];
}

/** The tags of a new code, as the API's `tags` object; a key given twice is a usage error. */
export function tagsOf(texts: string[] | undefined): Record<string, string> | undefined {
  if (!texts?.length) return undefined;
  const tags: Record<string, string> = {};
  for (const [key, value] of texts.map(pairOf)) {
    if (key in tags) throw new CliError(`--tag ${key} is given twice`, 2);
    tags[key] = value;
  }
  return tags;
}

/** A list's `--tag env=prod` filters as the API's repeatable `tag=env=prod`. */
export function tagFilterOf(texts: string[] | undefined): string[] | undefined {
  return texts?.length ? texts.map(pairOf).map(([key, value]) => `${key}=${value}`) : undefined;
}

/** Tags as the tables print them: `env=prod team=db`. */
export function tagsText(tags: Record<string, string>): string {
  return Object.entries(tags)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}
