-- The check-ins' hourly count (checkin-server-hour) on the server's own row (src/domain/checkins.ts says why).
-- A null and a constant default: neither rewrites the table nor holds its lock for more than a moment.
ALTER TABLE "servers" ADD COLUMN "checkin_bucket_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "checkin_count" integer DEFAULT 0 NOT NULL;