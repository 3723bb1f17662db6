-- Hand-written: the admin lists' search finds a part of a hostname, hint or id through trigram indexes
-- (the next migration). pg_trgm is in PostgreSQL's contrib and trusted: a role with CREATE on the
-- database creates it; PGlite loads it from its own contrib (src/db/pglite-extensions.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
