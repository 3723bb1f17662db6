-- Written by hand (DESIGN §21): `events` and `rate_limit_buckets` become tables range-partitioned by UTC
-- day, which drizzle-kit cannot write. The snapshot beside it is drizzle-kit's, from src/db/schema.ts (the
-- events' primary key now holds the partition key). Nothing is copied: each table as it was becomes one
-- past partition, from the beginning of time to the UTC midnight after its last row (or after now), that
-- retention drops whole when that midnight has expired; an empty one is dropped here. Its indexes already
-- match the new parent's and are attached as they are; only the events' (id, occurred_at) key is built.
-- Each table also gets a default partition, for rows no day partition holds yet (a clock ahead of the
-- partitions made ahead): the service moves them into their day's partition when it makes it
-- (src/db/time-partitions.ts), so no stray row ever blocks a day.
ALTER TABLE "events" RENAME TO "events_before_partitions";--> statement-breakpoint
-- Its key (id) gives way to the new parent's (id, occurred_at), which the attach builds.
ALTER TABLE "events_before_partitions" DROP CONSTRAINT "events_pkey";--> statement-breakpoint
ALTER INDEX "events_occurred_at_idx" RENAME TO "events_before_partitions_occurred_at_idx";--> statement-breakpoint
ALTER INDEX "events_type_idx" RENAME TO "events_before_partitions_type_idx";--> statement-breakpoint
ALTER INDEX "events_install_code_id_idx" RENAME TO "events_before_partitions_install_code_id_idx";--> statement-breakpoint
ALTER INDEX "events_activation_id_idx" RENAME TO "events_before_partitions_activation_id_idx";--> statement-breakpoint
ALTER INDEX "events_server_id_idx" RENAME TO "events_before_partitions_server_id_idx";--> statement-breakpoint
ALTER INDEX "events_undelivered_idx" RENAME TO "events_before_partitions_undelivered_idx";--> statement-breakpoint
CREATE TABLE "events" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "events_id_seq_partitioned" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"actor" text NOT NULL,
	"install_code_id" text,
	"activation_id" text,
	"server_id" text,
	"request_id" text,
	"client_key_hash" text,
	"data" jsonb NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "events_id_occurred_at_pk" PRIMARY KEY("id","occurred_at"),
	CONSTRAINT "events_actor_check" CHECK ("events"."actor" in ('installer', 'agent', 'operator', 'browser', 'service'))
) PARTITION BY RANGE ("occurred_at");--> statement-breakpoint
-- The new ids continue the old ones; the old table's sequence goes with its identity.
SELECT setval('events_id_seq_partitioned', coalesce((SELECT max("id") FROM "events_before_partitions"), 0) + 1, false);--> statement-breakpoint
ALTER TABLE "events_before_partitions" ALTER COLUMN "id" DROP IDENTITY;--> statement-breakpoint
ALTER SEQUENCE "events_id_seq_partitioned" RENAME TO "events_id_seq";--> statement-breakpoint
CREATE INDEX "events_occurred_at_idx" ON "events" USING btree ("occurred_at");--> statement-breakpoint
CREATE INDEX "events_type_idx" ON "events" USING btree ("type","id");--> statement-breakpoint
CREATE INDEX "events_install_code_id_idx" ON "events" USING btree ("install_code_id");--> statement-breakpoint
CREATE INDEX "events_activation_id_idx" ON "events" USING btree ("activation_id");--> statement-breakpoint
CREATE INDEX "events_server_id_idx" ON "events" USING btree ("server_id");--> statement-breakpoint
CREATE INDEX "events_undelivered_idx" ON "events" USING btree ("id") WHERE "events"."delivered_at" is null;--> statement-breakpoint
ALTER TABLE "rate_limit_buckets" RENAME TO "rate_limit_buckets_before_partitions";--> statement-breakpoint
ALTER INDEX "rate_limit_buckets_limit_name_subject_hash_bucket_start_pk" RENAME TO "rate_limit_buckets_before_partitions_pk";--> statement-breakpoint
ALTER INDEX "rate_limit_buckets_bucket_start_idx" RENAME TO "rate_limit_buckets_before_partitions_bucket_start_idx";--> statement-breakpoint
CREATE TABLE "rate_limit_buckets" (
	"limit_name" text NOT NULL,
	"subject_hash" text NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	"quota" integer,
	CONSTRAINT "rate_limit_buckets_limit_name_subject_hash_bucket_start_pk" PRIMARY KEY("limit_name","subject_hash","bucket_start"),
	CONSTRAINT "rate_limit_buckets_quota_check" CHECK ("rate_limit_buckets"."count" <= "rate_limit_buckets"."quota")
) PARTITION BY RANGE ("bucket_start");--> statement-breakpoint
CREATE INDEX "rate_limit_buckets_bucket_start_idx" ON "rate_limit_buckets" USING btree ("bucket_start");--> statement-breakpoint
DO $$
DECLARE
	upper_bound timestamptz;
BEGIN
	IF EXISTS (SELECT 1 FROM "events_before_partitions") THEN
		SELECT (date_trunc('day', greatest(max("occurred_at"), now()) AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC'
			INTO upper_bound FROM "events_before_partitions";
		EXECUTE format('ALTER TABLE "events" ATTACH PARTITION "events_before_partitions" FOR VALUES FROM (MINVALUE) TO (%L)', upper_bound);
	ELSE
		DROP TABLE "events_before_partitions";
	END IF;
	IF EXISTS (SELECT 1 FROM "rate_limit_buckets_before_partitions") THEN
		SELECT (date_trunc('day', greatest(max("bucket_start"), now()) AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC'
			INTO upper_bound FROM "rate_limit_buckets_before_partitions";
		EXECUTE format('ALTER TABLE "rate_limit_buckets" ATTACH PARTITION "rate_limit_buckets_before_partitions" FOR VALUES FROM (MINVALUE) TO (%L)', upper_bound);
	ELSE
		DROP TABLE "rate_limit_buckets_before_partitions";
	END IF;
END $$;--> statement-breakpoint
CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;--> statement-breakpoint
CREATE TABLE "rate_limit_buckets_default" PARTITION OF "rate_limit_buckets" DEFAULT;
