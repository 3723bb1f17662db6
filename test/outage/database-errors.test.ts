import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseError, isDatabaseUnavailable } from '../../src/db/database-errors.js';

/** An error the server answered, as node-postgres raises it. */
const postgresError = (code: string) =>
  Object.assign(new pg.DatabaseError(`server said ${code}`, 0, 'error'), { code });
/** As drizzle wraps a failed query: the driver's error is its cause. */
const failedQuery = (cause: unknown) =>
  Object.assign(new Error('Failed query: select 1\nparams: '), { query: 'select 1', cause });

describe('isDatabaseUnavailable: which errors answer 503 service_unavailable rather than 500', () => {
  it.each([
    ['3D000', 'the database does not exist'],
    ['28P01', 'password authentication failed'],
    ['28000', 'no pg_hba.conf entry / role not permitted'],
    ['08006', 'connection failure'],
    ['08P01', 'protocol violation (a pooler refusing a parameter)'],
    ['57P01', 'admin shutdown (pg_ctl stop -m fast)'],
    ['57P03', 'the database system is starting up or shutting down'],
    ['53300', 'too many connections'],
    ['57014', 'statement timeout'],
  ])('SQLSTATE %s (%s), bare and wrapped by drizzle', (code) => {
    expect(isDatabaseUnavailable(postgresError(code))).toBe(true);
    expect(isDatabaseUnavailable(failedQuery(postgresError(code)))).toBe(true);
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated',
    'Client has encountered a connection error and is not queryable',
    'Cannot use a pool after calling end on the pool',
  ])('node-postgres losing its connection: %s, bare and wrapped by drizzle', (message) => {
    expect(isDatabaseUnavailable(new Error(message))).toBe(true);
    expect(isDatabaseUnavailable(failedQuery(new Error(message)))).toBe(true);
  });

  it("driver codes and the database socket's own errors", () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('write CONNECT_TIMEOUT'), { code: 'CONNECT_TIMEOUT' }))).toBe(
      true,
    );
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect' }),
      ),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' })),
    ).toBe(true);
    for (const code of ['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ECONNABORTED']) {
      expect(isDatabaseUnavailable(Object.assign(new Error(`connect ${code}`), { code, syscall: 'connect' }))).toBe(
        true,
      );
    }
    expect(isDatabaseUnavailable(failedQuery(Object.assign(new Error('ECONNRESET'), { code: 'ECONNRESET' })))).toBe(
      true,
    );
  });

  it('not a client hanging up, a constraint, a bug', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isDatabaseUnavailable(postgresError('23505'))).toBe(false);
    expect(isDatabaseUnavailable(postgresError('42P01'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });

  it('isDatabaseError: what the server answered, and any failed query', () => {
    expect(isDatabaseError(postgresError('23505'))).toBe(true);
    expect(isDatabaseError(failedQuery(new Error('Connection terminated unexpectedly')))).toBe(true);
    expect(isDatabaseError(new TypeError('x is undefined'))).toBe(false);
  });
});
