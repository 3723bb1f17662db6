// DATABASE_URL as libpq reads it and as `pg_autoctl show uri` prints it: several hosts
// (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write&sslmode=prefer`), `target_session_attrs`
// and libpq's `sslmode` meanings. One module for the service, the `slowdns` command and the test harness.
// WHATWG's URL refuses a host list ("Invalid URL"), and node-postgres takes one host: each host is given to
// the driver as a URL of its own (hostUrl), and the service picks the host that accepts writes (postgres-pool.ts).

const sslModes = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
type SslMode = (typeof sslModes)[number];
/** libpq's values this service can honour for DATABASE_URL: it writes, so it needs a host that accepts writes or any host. */
const targetSessionAttrs = ['any', 'read-write', 'primary'] as const;
/** And for DATABASE_READ_URL (DESIGN §21): reads may go to a standby, preferably or only. */
const readTargetSessionAttrs = ['any', 'prefer-standby', 'standby'] as const;
type TargetSessionAttrs = (typeof targetSessionAttrs)[number] | (typeof readTargetSessionAttrs)[number];

export interface DatabaseHost {
  /** A name, an address (IPv6 without brackets) or, empty, the driver's default. */
  host: string;
  port: number;
}

export interface DatabaseUrl {
  scheme: 'postgres' | 'postgresql';
  hosts: DatabaseHost[];
  /** The user-info part as written (still percent-encoded), or undefined. */
  userInfo: string | undefined;
  /** The path as written: `/db`, or empty. */
  path: string;
  /** Unset: no TLS, as node-postgres has always done here (libpq's own default is `prefer`). */
  sslmode: SslMode | undefined;
  /**
   * Unset: `any` for one host, `read-write` for several (a list is there to find the writable one); for a
   * read URL, `prefer-standby` for several.
   */
  targetSessionAttrs: TargetSessionAttrs;
  /** The other query parameters, passed to the driver as they are (sslrootcert, application_name, ...). */
  params: [string, string][];
}

export class DatabaseUrlError extends Error {}

const DEFAULT_PORT = 5432;
const shape = /^(postgres|postgresql):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/;

function parseHost(part: string, url: string): DatabaseHost {
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(part);
  const [host, port] = bracketed
    ? [bracketed[1] ?? '', bracketed[2]]
    : ((m) => [m?.[1] ?? '', m?.[2]])(/^([^:]*)(?::(\d*))?$/.exec(part));
  if (!bracketed && part.split(':').length > 2) throw new DatabaseUrlError(`an IPv6 host must be in brackets: ${part}`);
  const number = port ? Number(port) : DEFAULT_PORT;
  if (!Number.isInteger(number) || number < 1 || number > 65535)
    throw new DatabaseUrlError(`bad port in ${describeHosts(url)}`);
  return { host: decodeURIComponent(host), port: number };
}

/** Where the hosts are, for messages: never the user or password. */
function describeHosts(url: string): string {
  return shape.exec(url)?.[3] ?? 'the URL';
}

/**
 * Reads a `postgres://` URL with one or several hosts; throws DatabaseUrlError with a message safe to print.
 * `for: 'reads'` reads DATABASE_READ_URL, whose hosts may be standbys (`target_session_attrs` any,
 * prefer-standby or standby).
 */
export function parseDatabaseUrl(url: string, options: { for?: 'writes' | 'reads' } = {}): DatabaseUrl {
  const reads = options.for === 'reads';
  const match = shape.exec(url);
  if (!match) throw new DatabaseUrlError('must be postgres://[user[:password]@]host[:port][,host[:port]...]/database');
  const [, scheme, userInfo, netloc = '', path = '', query = ''] = match;
  const hosts = netloc.split(',').map((part) => parseHost(part, url));
  let sslmode: SslMode | undefined;
  let attrs: string | undefined;
  const params: [string, string][] = [];
  for (const [name, value] of new URLSearchParams(query)) {
    if (name === 'sslmode') {
      if (!(sslModes as readonly string[]).includes(value))
        throw new DatabaseUrlError(`sslmode must be one of ${sslModes.join(', ')}`);
      sslmode = value as SslMode;
    } else if (name === 'target_session_attrs') attrs = value;
    else params.push([name, value]);
  }
  if (reads) {
    if (attrs !== undefined && !(readTargetSessionAttrs as readonly string[]).includes(attrs))
      throw new DatabaseUrlError(`target_session_attrs must be one of ${readTargetSessionAttrs.join(', ')}`);
  } else if (attrs !== undefined && !(targetSessionAttrs as readonly string[]).includes(attrs))
    throw new DatabaseUrlError(
      `target_session_attrs must be one of ${targetSessionAttrs.join(', ')} (the service writes, so it needs the primary)`,
    );
  if (!reads && hosts.length > 1 && attrs === 'any')
    throw new DatabaseUrlError('target_session_attrs=any with several hosts could write to a standby: use read-write');
  return {
    scheme: scheme as DatabaseUrl['scheme'],
    hosts,
    userInfo,
    path,
    sslmode,
    targetSessionAttrs:
      (attrs as TargetSessionAttrs | undefined) ??
      (hosts.length > 1 ? (reads ? 'prefer-standby' : 'read-write') : 'any'),
    params,
  };
}

/**
 * One host of the list as a single-host URL node-postgres and postgres.js both read, with libpq's meaning of
 * `sslmode` (node-postgres otherwise reads `require` and `prefer` as `verify-full`). `prefer` asks for TLS
 * without verifying, as libpq does; `plain` (a server that refused TLS under `prefer`) gives `disable`.
 */
export function hostUrl(url: DatabaseUrl, host: DatabaseHost, options: { plain?: boolean } = {}): string {
  const name = host.host.includes(':') ? `[${host.host}]` : encodeURIComponent(host.host);
  const netloc = host.host === '' ? '' : `${name}:${host.port}`;
  const params = new URLSearchParams(url.params);
  const sslmode = options.plain ? 'disable' : url.sslmode;
  if (sslmode) params.set('sslmode', sslmode);
  if (sslmode && ['prefer', 'require', 'verify-ca'].includes(sslmode) && !params.has('uselibpqcompat'))
    params.set('uselibpqcompat', 'true');
  const query = params.toString();
  return `${url.scheme}://${url.userInfo !== undefined ? `${url.userInfo}@` : ''}${netloc}${url.path}${query ? `?${query}` : ''}`;
}

/** The hosts and database, for logs: `postgres://h1:5432,h2:5432/db`, never the user or password. */
export function describeDatabaseUrl(url: DatabaseUrl): string {
  const hosts = url.hosts.map((h) => (h.host.includes(':') ? `[${h.host}]:${h.port}` : `${h.host}:${h.port}`));
  return `${url.scheme}://${hosts.join(',')}${url.path}`;
}

/** The message node-postgres gives when a server without TLS is asked for it (under `prefer`: connect in plain). */
export const refusedTls = (error: unknown) =>
  /does not support SSL connections/i.test(String((error as { message?: unknown } | undefined)?.message));
