/** Runs one statement (`text`, never its parameters) inside a span: Tracing.statement. */
export type StatementTracer = <T>(text: string, run: () => Promise<T>) => Promise<T>;

// biome-ignore lint/suspicious/noExplicitAny: the drivers' query() overloads differ; only the first argument is read
type Query = (...args: any[]) => any;

/**
 * Makes each `query()` of a driver's client (a node-postgres connection, PGlite or a PGlite transaction)
 * run through `trace` with its SQL text. Both drivers take the text first, as a string or as `{ text }`;
 * a call with a callback is left as it is (none of this service's makes one).
 */
export function traceQueries<Client extends { query: Query }>(client: Client, trace: StatementTracer): Client {
  const query = client.query.bind(client) as Query;
  client.query = ((...args: unknown[]) => {
    const first = args[0] as string | { text?: unknown } | undefined;
    const text = typeof first === 'string' ? first : first?.text;
    if (typeof text !== 'string' || args.some((arg) => typeof arg === 'function')) return query(...args);
    return trace(text, () => query(...args));
  }) as Client['query'];
  return client;
}
