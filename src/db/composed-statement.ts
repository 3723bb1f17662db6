import { namedStatement, parameterNames, type NamedStatement, type StatementParam } from './named-statement.js';

/**
 * A piece of SQL that statements splice in (a CTE, a subquery, a column of the answer), with its contract
 * in its type: the named parameters it reads (`Reads`) and the columns it adds to the answer (`Columns`).
 * What it needs from the statement around it (a CTE, a row under an alias) is said where it is made; a
 * piece that does not fit there fails test/foundation/composed-statements.test.ts.
 */
export interface SqlPiece<Reads extends string = never, Columns = unknown> {
  readonly text: string;
  /** The parameters `text` reads: checked against it when the piece is made. */
  readonly reads: readonly Reads[];
  /** Only in the type, never set: a statement's answer row must hold `Columns` (see `NamedStatement.answers`). */
  readonly answers?: (row: Columns) => void;
}

/**
 * A piece reading the parameters `reads`, which must be every one its text reads (a piece cannot read a
 * parameter its type does not declare). Give `Columns` where the piece adds columns to the answer.
 */
export function sqlPiece<const Reads extends string = never, Columns = unknown>(
  reads: readonly Reads[],
  text: string,
): SqlPiece<Reads, Columns> {
  const read = parameterNames(text);
  if (read.length !== reads.length || read.some((name) => !reads.includes(name as Reads)))
    throw new Error(`A piece reads ${read.map((n) => `:${n}`).join(', ') || 'nothing'}, not what it declares: ${text}`);
  const piece = {
    text,
    reads,
    // Spliced by a plain template literal instead of `composedStatement`, a piece would escape its check: refused.
    toString(): never {
      throw new Error(`A piece is spliced by composedStatement, not into a string: ${text}`);
    },
  };
  return piece;
}

// Every composed statement, as its module makes it at load: what the test that prepares them all reads.
const made: { readonly text: string }[] = [];

/**
 * A statement spliced from pieces: `composedStatement<Params>()` tags its SQL, whose `${…}` are `SqlPiece`s
 * alone. A piece reading a parameter that `Params` lacks does not compile, and the rows the statement is
 * run for must hold the columns its pieces add. The text is the template's, each piece's text in its place.
 */
export function composedStatement<Params extends Record<string, StatementParam>>() {
  return <Pieces extends SqlPiece<keyof Params & string, never>[]>(
    source: TemplateStringsArray,
    ...pieces: Pieces
  ): NamedStatement<Params, NonNullable<Pieces[number]['answers']>> => {
    const statement = namedStatement<Params>(source.reduce((text, chunk, i) => text + pieces[i - 1]!.text + chunk));
    made.push(statement);
    return statement;
  };
}

/** The composed statements of the modules loaded so far. */
export function composedStatements(): readonly { readonly text: string }[] {
  return made;
}
