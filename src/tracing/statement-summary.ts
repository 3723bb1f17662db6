/**
 * A statement's `db.query.summary` (OpenTelemetry's database conventions), also its span's name: what
 * it does and to which tables, in the order written, e.g. `INSERT rate_limit_buckets UPDATE install_codes`
 * for precheck's one statement, `SELECT signing_keys`, `BEGIN`. Made from the text alone (this
 * service's statements are fixed texts with `$n` parameters), so it is the same for every run of a statement.
 */
export function statementSummary(text: string): string {
  const parts: string[] = [];
  const add = (part: string) => {
    if (!parts.includes(part)) parts.push(part);
  };
  // Writes, wherever they are (a CTE's); `on conflict … do update set` names no table.
  for (const [, verb, table] of text.matchAll(/\b(insert\s+into|update|delete\s+from)\s+("?[A-Za-z_][\w$]*"?)/gi)) {
    if (table!.toLowerCase() === 'set') continue;
    add(`${verb!.split(/\s+/)[0]!.toUpperCase()} ${table!.replaceAll('"', '')}`);
  }
  if (parts.length > 0) return parts.slice(0, 4).join(' ');
  const operation = /^\s*\(?\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
  const table = /\bfrom\s+("?[A-Za-z_][\w$]*"?)/i.exec(text)?.[1]?.replaceAll('"', '');
  return table && operation !== 'WITH' ? `${operation} ${table}` : operation;
}
