// Which database errors waiting cannot cure at start: DATABASE_URL names a database, a role or a host that
// is not there, or a password the server refuses. Retrying those only hides a typo behind 503s; every other
// unavailability (refused connections, a restart, a promotion, a slow DNS) may heal, and start-up retries it.

type ErrorLike = { code?: unknown; cause?: unknown; message?: unknown; hostname?: unknown } | undefined;

/** SQLSTATE or socket code → what to say, in plain words, and what to change. `database` is where, for the log. */
const permanent: Record<string, (detail: string, database: string) => string> = {
  // invalid_catalog_name: `database "x" does not exist`
  '3D000': (detail, database) =>
    `the database in DATABASE_URL does not exist (${database}: ${detail}); create it (createdb), or correct the name in DATABASE_URL`,
  // invalid_authorization_specification: `role "x" does not exist`, or no pg_hba.conf entry for it
  '28000': (detail, database) =>
    `the database refused the user in DATABASE_URL (${database}: ${detail}); create the role, allow it in pg_hba.conf, or correct the user in DATABASE_URL`,
  // invalid_password
  '28P01': (detail, database) =>
    `the database refused the password in DATABASE_URL (${database}: ${detail}); correct the password in DATABASE_URL`,
  // getaddrinfo found no such name (EAI_AGAIN, a resolver not answering, is retried)
  ENOTFOUND: (_detail, database) =>
    `the host name in DATABASE_URL does not resolve (${database}); correct the host in DATABASE_URL`,
};

/**
 * The plain refusal for an error (or its cause) that waiting cannot cure, or undefined when the error may heal
 * (or is not a connection's). `database` names the database for the message (host, port and name, no secrets).
 */
export function permanentDatabaseProblem(error: unknown, database: string): string | undefined {
  for (let e = error as ErrorLike, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++) {
    const explain = typeof e.code === 'string' && Object.hasOwn(permanent, e.code) ? permanent[e.code] : undefined;
    if (explain) return explain(typeof e.message === 'string' ? e.message : String(e.code), database);
  }
  return undefined;
}
