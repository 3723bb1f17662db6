import { createHash } from 'node:crypto';
import type { Database } from '../../src/db/database.js';
import { namedStatement, type StatementParam } from '../../src/db/named-statement.js';
import { runStatement } from '../../src/db/statement.js';

/** The agent token the fill gives the server of the i-th activation (1 to `rows`): what BENCH_ONLY=checkins checks in with. */
export function benchAgentToken(i: number): string {
  return `bench-agent-act_${createHash('md5').update(`act${i}`).digest('hex').slice(0, 16)}`;
}

/** `rows` install codes, each activated by a machine of its own that registered a server, spread over addresses and times. */
export async function fillFleet(db: Database, rows: number, now: Date): Promise<void> {
  const run = async (text: string, params: Record<string, StatementParam> = {}) =>
    runStatement<Record<string, string>, Record<string, StatementParam>>(db, namedStatement(text), params);
  const at = now.toISOString();
  // Indexes made after the rows, not kept up row by row: minutes instead of a quarter of an hour at a million.
  const tables = ['install_codes', 'activations', 'servers'];
  const indexes = await run(
    `select indexname, indexdef from pg_indexes where tablename = any(string_to_array(:tables, ',')) and indexname not in (select conname from pg_constraint)`,
    { tables: tables.join(',') },
  );
  for (const { indexname } of indexes) await run(`drop index ${indexname}`);
  await run(
    `
    insert into install_codes (id, code_hash, hint, status, issued_at, expires_at)
    select 'ic_' || substr(md5('ic' || i), 1, 16), md5('code' || i), 'SDNS-SD-…' || upper(substr(md5('hint' || i), 1, 6)),
           case when i % 10 = 0 then 'issued' else 'consumed' end,
           :at::timestamptz - make_interval(secs => :rows::int - i), :at::timestamptz - make_interval(secs => :rows::int - i) + interval '1 hour'
    from generate_series(1, :rows::int) i`,
    { rows: String(rows), at },
  );
  await run(
    `
    insert into activations (id, install_code_id, status, hostname, public_ip, machine_id, ssh_fingerprint, requested_ref, installer_version,
                             install_token_jti_hash, install_token_expires_at, created_at, confirmed_at)
    select 'act_' || substr(md5('act' || i), 1, 16), 'ic_' || substr(md5('ic' || i), 1, 16),
           case when i % 10 = 0 then 'activated' else 'confirmed' end,
           'host-' || i || '.example.' || case when i % 2 = 0 then 'net' else 'org' end,
           case when i % 10 = 0 then '2001:db8:' || to_hex(i % 65536) || '::' || to_hex(i / 65536 + 1)
                else '10.' || (i >> 16) % 256 || '.' || (i >> 8) % 256 || '.' || i % 256 end,
           md5('machine' || i), 'SHA256:' || substr(md5('fingerprint' || i) || md5('key' || i), 1, 43), 'main', '2026.11.20.1',
           md5('jti' || i), :at::timestamptz - make_interval(secs => :rows::int - i) + interval '1 hour', :at::timestamptz - make_interval(secs => :rows::int - i), case when i % 10 = 0 then null else :at::timestamptz - make_interval(secs => :rows::int - i) end
    from generate_series(1, :rows::int) i`,
    { rows: String(rows), at },
  );
  await run(
    `
    insert into servers (id, activation_id, agent_token_hash, hostname, public_ip, machine_id, ssh_fingerprint, agent_version, status, registered_at, last_seen_at)
    select 'srv_' || substr(md5('srv' || a.id), 1, 16), a.id, encode(sha256(convert_to('bench-agent-' || a.id, 'UTF8')), 'hex'), a.hostname, a.public_ip, a.machine_id, a.ssh_fingerprint, '2026.11.20.1',
           case when a.created_at::text like '%7' then 'revoked' else 'active' end, a.created_at,
           :at::timestamptz - make_interval(secs => (abs(hashtext(a.id)) % 200000))
    from activations a`,
    { at },
  );
  for (const { indexdef } of indexes) await run(indexdef!);
  await run('vacuum analyze install_codes, activations, servers');
}
