-- The events list's order, newest first by (occurred_at, id), whole or of one type, as indexes (DESIGN §21):
-- each day partition's index read backward and merged stops at a page's limit, where an index on
-- occurred_at alone left a scan of every partition and a sort. Written by drizzle-kit from
-- src/db/schema.ts; the last statement by hand (drizzle-kit has no table storage parameters): a server's
-- page keeps a fifth free, so that a check-in (no indexed column changed) stays a HOT update on its page.
DROP INDEX "events_occurred_at_idx";--> statement-breakpoint
DROP INDEX "events_type_idx";--> statement-breakpoint
CREATE INDEX "events_occurred_at_idx" ON "events" USING btree ("occurred_at","id");--> statement-breakpoint
CREATE INDEX "events_type_idx" ON "events" USING btree ("type","occurred_at","id");--> statement-breakpoint
ALTER TABLE "servers" SET (fillfactor = 80);
