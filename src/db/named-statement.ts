/** A statement's parameter: strings (timestamps as ISO text, JSON as text) or booleans, cast in the SQL. */
export type StatementParam = string | boolean | null;

/**
 * An SQL statement written with named parameters (`:code_hash`, `:now::timestamptz`), compiled once, at
 * module load, to the driver's `$1`, `$2`… (`text`): a parameter is found by its name, never by counting,
 * and a request pays only for putting its values in order (`values`).
 */
export interface NamedStatement<Params extends Record<string, StatementParam>, Answers = (row: unknown) => void> {
  /** The SQL the driver runs, with `$n` in place of each name (the same name, the same `$n`). */
  readonly text: string;
  /** The names in the order of their `$n`. */
  readonly names: readonly (keyof Params & string)[];
  /** The values of `params` in the order of `names`; a name left out is an error, not a silent null. */
  values(params: Params): StatementParam[];
  /**
   * Only in the type, never set: for each piece of the statement that adds columns to its answer, a function
   * taking them (`SqlPiece`), so the row the statement is run for (`runStatement`) must hold each piece's columns.
   */
  readonly answers?: Answers;
}

// A quoted literal, a quoted identifier or a `--` comment is passed over; elsewhere `:name` (not `::type`) is a parameter.
const TOKENS = /'(?:[^']|'')*'|"[^"]*"|--[^\n]*|(?<![:\w]):([A-Za-z_]\w*)|\$\d+/g;

/** The named parameters `source` reads, each once, in the order of their first use. */
export function parameterNames(source: string): string[] {
  const names = new Set<string>();
  for (const [, name] of source.matchAll(TOKENS)) if (name !== undefined) names.add(name);
  return [...names];
}

/**
 * Compiles `source` (SQL with `:name` parameters) to a `NamedStatement`. Call it at module load: a
 * statement that still holds a positional `$n` is refused there, so both kinds never mix.
 */
export function namedStatement<Params extends Record<string, StatementParam>>(source: string): NamedStatement<Params> {
  const names: string[] = [];
  const text = source.replace(TOKENS, (token: string, name: string | undefined) => {
    if (token.startsWith('$')) throw new Error(`A named statement holds a positional ${token}: name it.`);
    if (name === undefined) return token;
    const at = names.indexOf(name);
    return `$${at === -1 ? names.push(name) : at + 1}`;
  });
  return {
    text,
    names: names as (keyof Params & string)[],
    values(params) {
      return names.map((name) => {
        const value = params[name];
        if (value === undefined) throw new Error(`The statement's parameter :${name} has no value.`);
        return value;
      });
    },
  };
}
